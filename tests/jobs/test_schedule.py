"""Due times: daily and weekly, in UTC."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta, timezone

from panelgate.jobs.schedule import Daily, Weekly

MONDAY = datetime(2026, 3, 2, tzinfo=UTC)  # a Monday


def at(day: int, hour: int, minute: int = 0) -> datetime:
    return MONDAY + timedelta(days=day, hours=hour, minutes=minute)


def test_daily_is_due_today_once_its_time_has_come() -> None:
    daily = Daily(time(5, 0))
    assert daily.latest(at(2, 4, 59)) == at(1, 5)
    assert daily.latest(at(2, 5)) == at(2, 5)
    assert daily.next(at(2, 5)) == at(3, 5)
    assert daily.describe() == "daily at 05:00 UTC"


def test_weekly_is_due_on_its_weekday() -> None:
    sundays = Weekly(6, time(7, 0))
    assert sundays.latest(at(2, 12)) == at(-1, 7)
    assert sundays.latest(at(6, 7)) == at(6, 7)
    assert sundays.next(at(6, 7)) == at(13, 7)
    assert sundays.describe() == "Sundays at 07:00 UTC"


def test_due_times_are_utc_whatever_zone_now_is_given_in() -> None:
    tokyo = timezone(timedelta(hours=9))
    assert Daily(time(5, 0)).latest(at(2, 6).astimezone(tokyo)) == at(2, 5)
