"""A stamp the worker processes of one server share, moved by every committed edit of the configuration.

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
"""The stamp's file name in the data folder."""
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
