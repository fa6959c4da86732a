"""Stamps the worker processes of one server share: one moved by every committed edit of the
configuration, one by every verdict.

The workers of `panelgate serve --workers N` must see an edit made through
any of them at once. Asking the database's config version before every use
of the cached bench did that, at the price of a query per read: a tenth of a
route turn's CPU on SQLite, a round trip on PostgreSQL. The stamp is eight
bytes of a file in the data folder, mapped into every worker's memory, so
checking it is a memory read. Each edit writes a fresh random value instead
of counting, so two workers editing at once need no lock: whichever write
lands last differs from anything a reader saw before it.
"""

from __future__ import annotations

import mmap
import os
import secrets
from pathlib import Path

CONFIG_STAMP = "config-stamp"
"""The configuration stamp's file name in the data folder."""
VERDICT_STAMP = "verdict-stamp"
"""The verdict stamp's: the verdict counts every panel weighs are kept too, and a verdict through one
worker must reach the next panel on any other."""
SIZE = 8


class SharedStamp:
    def __init__(self, path: Path) -> None:
        descriptor = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            if os.fstat(descriptor).st_size < SIZE:
                os.ftruncate(descriptor, SIZE)
            self._map = mmap.mmap(descriptor, SIZE)
        finally:
            os.close(descriptor)  # the mapping keeps the file

    def read(self) -> int:
        return int.from_bytes(self._map[:SIZE], "little")

    def move(self) -> None:
        self._map[:SIZE] = secrets.token_bytes(SIZE)

    def close(self) -> None:
        self._map.close()


class Stamps:
    """The configuration's stamp and the verdicts' stamp, in one data folder."""

    def __init__(self, folder: Path) -> None:
        self.config = SharedStamp(folder / CONFIG_STAMP)
        self.verdicts = SharedStamp(folder / VERDICT_STAMP)

    def close(self) -> None:
        self.config.close()
        self.verdicts.close()
