"""Verdicts per day: how many current verdicts said useful and not useful on each of the last days.

The Record page draws it to show whether the record is still being fed. A
call counts once, on the UTC day of its current verdict (a later verdict
supersedes), read from the counts kept as verdicts are written
(`verdict_tallies.py`), so the page costs the same however many verdicts
the last days hold.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

from panelgate.store.database import Database
from panelgate.store.verdict_tallies import judged_per_day


@dataclass(frozen=True)
class DayVerdicts:
    day: date
    """A UTC day."""
    useful: int = 0
    not_useful: int = 0


async def verdicts_per_day(
    db: Database, today: date, days: int = 30, collection: str | None = None
) -> list[DayVerdicts]:
    """The `days` UTC days up to `today`, oldest first, each with its current verdicts (of the calls
    of `collection` when given); days without any are there with zeros."""
    first = today - timedelta(days=days - 1)
    async with db.engine.connect() as connection:
        rows = await judged_per_day(connection, first, today, collection)
    useful = [0] * days
    not_useful = [0] * days
    for day, was_useful, number in rows:
        (useful if was_useful else not_useful)[(day - first).days] += number
    return [DayVerdicts(first + timedelta(days=i), useful[i], not_useful[i]) for i in range(days)]
