"""Verdicts per day: how many current verdicts said useful and not useful on each of the last days.

The Record page draws it to show whether the record is still being fed. A
call counts once, on the day of its current verdict (`current_verdicts.py`:
a later verdict supersedes). Days are UTC days, bucketed in the query by
comparing with each day's start (a CASE over bound times), which SQLite and
PostgreSQL read alike; a date function would differ between them (and on
PostgreSQL follow the session's time zone).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta

from sqlalchemy import ColumnElement, case, func, select, true

from panelgate.store.current_verdicts import current_verdict_ids
from panelgate.store.database import Database
from panelgate.store.tables import evidence, verdicts


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
    starts = [datetime.combine(today - timedelta(days=back), time(), UTC) for back in range(days - 1, -1, -1)]
    until = starts[-1] + timedelta(days=1)
    day_of = case(*((verdicts.c.at >= start, index) for index, start in reversed(list(enumerate(starts)))))
    where: ColumnElement[bool] = true() if collection is None else evidence.c.collection == collection
    latest = current_verdict_ids()
    judged = (
        select(day_of.label("day"), verdicts.c.useful)
        .select_from(verdicts)
        .join(latest, latest.c.id == verdicts.c.id)
        .join(evidence, evidence.c.call == verdicts.c.call)
        .where(verdicts.c.at >= starts[0], verdicts.c.at < until, where)
        .subquery()
    )
    # grouped outside: PostgreSQL would not take the CASE in GROUP BY as the one selected (new parameters)
    query = select(judged.c.day, judged.c.useful, func.count()).group_by(judged.c.day, judged.c.useful)
    async with db.engine.connect() as connection:
        rows = (await connection.execute(query)).all()
    useful = [0] * days
    not_useful = [0] * days
    for index, was_useful, number in rows:
        (useful if was_useful else not_useful)[index] += number
    return [DayVerdicts(start.date(), useful[i], not_useful[i]) for i, start in enumerate(starts)]
