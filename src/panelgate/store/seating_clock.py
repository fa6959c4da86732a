"""When each model last sat: the copy seating reads on every panel.

Re-reading the evidence table per panel would cost a grouped query each
time, so panels read this copy: what the store said when it was last read,
plus every seat this process has recorded since. After an edit of the bench
(a rename moves aliases) the copy is unusable and must be read again before
seating; when it is merely older than `max_age_s` (other gateway processes'
panels are missing from it) panels go on with it while a new copy is read.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from datetime import datetime


class SeatingClock:
    def __init__(self, max_age_s: float = 1.0) -> None:
        self.max_age_s = max_age_s
        self._latest: dict[str, datetime] | None = None
        self._read_at = 0.0
        self._generation = -1

    def current(self, generation: int) -> dict[str, datetime] | None:
        """A copy, unless none was read yet or the bench was edited since."""
        if self._latest is None or generation != self._generation:
            return None
        return dict(self._latest)

    def is_old(self) -> bool:
        return time.monotonic() - self._read_at > self.max_age_s

    def replace(self, latest: dict[str, datetime], generation: int) -> None:
        self._latest, self._read_at, self._generation = dict(latest), time.monotonic(), generation

    def refresh(self, latest: dict[str, datetime], generation: int) -> None:
        """Take a re-read copy, keeping what this process saw while it was being read."""
        if self._latest is None or generation != self._generation:
            self.replace(latest, generation)
            return
        merged = dict(latest)
        for alias, at in self._latest.items():
            if alias in merged and merged[alias] >= at:
                continue
            merged[alias] = at
        self._latest, self._read_at = merged, time.monotonic()

    def saw(self, aliases: Sequence[str], at: datetime) -> None:
        if self._latest is None:
            return
        for alias in aliases:
            if alias not in self._latest or self._latest[alias] < at:
                self._latest[alias] = at
