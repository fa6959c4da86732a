"""The last day as 24 hour-long buckets, and the SQL that puts a row's time in its bucket.

The Activity page's charts read the store hour by hour (Prometheus' counters
only live since a process started). A bucket is found by comparing the time
with each hour's start, a CASE over bound times, which SQLite and PostgreSQL
read alike; a date function would differ between them (and on PostgreSQL
follow the session's time zone). Every query also bounds its time column to
the day, so it reads through the column's index and never past a day.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Case, ColumnElement, case

HOURS = 24
HOUR = timedelta(hours=1)


@dataclass(frozen=True)
class Hours:
    """UTC hours, oldest first: the last is the one `now` is in, so the first starts less than a day ago."""

    starts: tuple[datetime, ...]

    @classmethod
    def ending(cls, now: datetime, count: int = HOURS) -> Hours:
        last = now.replace(minute=0, second=0, microsecond=0)
        return cls(tuple(last - HOUR * back for back in range(count - 1, -1, -1)))

    @property
    def since(self) -> datetime:
        return self.starts[0]

    @property
    def until(self) -> datetime:
        return self.starts[-1] + HOUR

    def within(self, at: ColumnElement[Any]) -> list[ColumnElement[bool]]:
        """The WHERE terms that keep rows of these hours (and read the time's index)."""
        return [at >= self.since, at < self.until]

    def index_of(self, at: ColumnElement[Any]) -> Case[int]:
        """The bucket number (0 oldest) of a row already kept by `within`."""
        return case(*((at >= start, index) for index, start in reversed(list(enumerate(self.starts)))))
