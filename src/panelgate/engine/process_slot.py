"""A numbered slot per gateway process on this machine, held with a file lock in the data folder.

Panel ids leave 65,536 tokens a second; processes that draw from the whole
range meet every few seconds at a few hundred panels a second each. Each
process therefore takes one of `SLOTS` lock files and draws only tokens of
its slot. The lock is the kernel's (`flock`), so a process that dies, even
by SIGKILL, frees its slot at once, and a restarted one takes it again.
A process that finds every slot taken draws from the whole range, and the
record's primary key catches the rare repeat.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
from typing import IO

SLOTS = 16


class ProcessSlot:
    def __init__(self, folder: Path) -> None:
        self._folder = folder
        self._held: IO[bytes] | None = None
        self.number: int | None = None

    def take(self) -> int | None:
        """The lowest free slot, now held by this process; None when all are taken."""
        self._folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        for number in range(SLOTS):
            handle = (self._folder / f"slot-{number:02d}.lock").open("ab")
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                handle.close()
                continue
            handle.truncate(0)
            handle.write(f"{os.getpid()}\n".encode())
            handle.flush()
            self._held, self.number = handle, number
            return number
        return None

    def release(self) -> None:
        if self._held is not None:
            self._held.close()  # closing drops the lock
            self._held, self.number = None, None
