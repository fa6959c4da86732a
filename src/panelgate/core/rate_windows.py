"""The clock windows hand-set limits count in: minutes, UTC days and calendar months.

A period is a whole number (minutes since the epoch, days since the epoch,
months since year 0), so every gateway process names the same window the
same way and the database can key its counts on it.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Literal

Window = Literal["minute", "day", "month"]
WINDOWS: tuple[Window, ...] = ("minute", "day", "month")
MeasureRule = Literal["requests", "tokens"]
MEASURES: tuple[MeasureRule, ...] = ("requests", "tokens")


def period_of(window: Window, now: datetime) -> int:
    stamp = now.astimezone(UTC)
    if window == "minute":
        return int(stamp.timestamp()) // 60
    if window == "day":
        return int(stamp.timestamp()) // 86_400
    return stamp.year * 12 + stamp.month - 1


def period_end(window: Window, period: int) -> datetime:
    """When `period` of `window` is over (the next one starts)."""
    if window == "minute":
        return datetime.fromtimestamp((period + 1) * 60, UTC)
    if window == "day":
        return datetime.fromtimestamp((period + 1) * 86_400, UTC)
    year, month = divmod(period + 1, 12)
    return datetime(year, month + 1, 1, tzinfo=UTC)


def per_window_words(window: Window) -> str:
    return {"minute": "a minute", "day": "a day", "month": "a month"}[window]


def seconds_until(moment: datetime, now: datetime) -> float:
    return max(0.0, (moment - now) / timedelta(seconds=1))
