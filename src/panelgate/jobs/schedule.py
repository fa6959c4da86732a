"""When a job is due: every day, or one day a week, at a time of day in UTC.

Pure date arithmetic (the clock is passed in). A schedule answers two
questions: the newest due time at or before now (what the runner runs, or
catches up on), and the first one after now (what the admin API shows).
UTC, so due times do not move with the server's zone or with daylight
saving.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta
from typing import Protocol

DAY = timedelta(days=1)
WEEK = timedelta(days=7)
WEEKDAYS = ("Mondays", "Tuesdays", "Wednesdays", "Thursdays", "Fridays", "Saturdays", "Sundays")


class Schedule(Protocol):
    def latest(self, now: datetime) -> datetime:
        """The newest due time at or before `now`."""
        ...

    def next(self, now: datetime) -> datetime:
        """The first due time after `now`."""
        ...

    def describe(self) -> str: ...


@dataclass(frozen=True)
class Daily:
    at: time

    def latest(self, now: datetime) -> datetime:
        now = now.astimezone(UTC)
        due = datetime.combine(now.date(), self.at, UTC)
        return due if due <= now else due - DAY

    def next(self, now: datetime) -> datetime:
        return self.latest(now) + DAY

    def describe(self) -> str:
        return f"daily at {self.at:%H:%M} UTC"


@dataclass(frozen=True)
class Weekly:
    weekday: int
    """0 is Monday."""
    at: time

    def latest(self, now: datetime) -> datetime:
        now = now.astimezone(UTC)
        day = now.date() - timedelta(days=(now.weekday() - self.weekday) % 7)
        due = datetime.combine(day, self.at, UTC)
        return due if due <= now else due - WEEK

    def next(self, now: datetime) -> datetime:
        return self.latest(now) + WEEK

    def describe(self) -> str:
        return f"{WEEKDAYS[self.weekday]} at {self.at:%H:%M} UTC"
