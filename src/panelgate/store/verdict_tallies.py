"""Counting current verdicts as they are written, and reading the counts (`tables/tallies.py`).

A verdict supersedes the call's earlier one, so writing one moves a count:
the earlier verdict's cell loses one, the new verdict's cell gains one, in
the verdict's own transaction (`count_verdict`), so the counts always agree
with the verdicts table. Seating's evidence, `/bench/record`, route mode's
member order and the Record page read these counts instead of grouping
every verdict ever given, which took seconds with a million of them. Only
`/bench/record?task=` (words in prompts and notes) still reads the verdicts
themselves.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from sqlalchemy import ColumnElement, Row, Table, and_, case, delete, func, insert, select, true, update
from sqlalchemy.ext.asyncio import AsyncConnection

from panelgate.store.current_verdicts import is_current
from panelgate.store.tables import evidence, models, verdict_days, verdict_tallies, verdicts
from panelgate.store.upsert import insert_for

NONE = ""
"""A key part the verdict lacks (no collection, no shape, no source)."""


@dataclass(frozen=True)
class ModelTally:
    """A model's current verdicts: how many, how many useful, and when the newest was given."""

    alias: str
    useful: int
    judged: int
    last: datetime | None


async def count_verdict(connection: AsyncConnection, call: str) -> None:
    """Count the verdict just written on `call`, and uncount the one it supersedes (if any)."""
    judged = (
        select(verdicts.c.useful, verdicts.c.source, verdicts.c.at, evidence.c.model_id)
        .add_columns(evidence.c.collection, evidence.c.shape)
        .join(evidence, evidence.c.call == verdicts.c.call)
        .where(verdicts.c.call == call)
        .order_by(verdicts.c.id.desc())
        .limit(2)
    )
    rows = (await connection.execute(judged)).all()
    if len(rows) == 2:  # the superseded verdict was counted when it was written: its rows are there
        tally, day = _cells(rows[1])
        await connection.execute(
            update(verdict_tallies)
            .where(_key(verdict_tallies, tally))
            .values(judged=verdict_tallies.c.judged - 1)
        )
        await connection.execute(
            update(verdict_days).where(_key(verdict_days, day)).values(judged=verdict_days.c.judged - 1)
        )
    await _count(connection, rows[0])


_Cell = dict[str, object]


def _cells(verdict: Row[Any]) -> tuple[_Cell, _Cell]:
    """The verdict's key in `verdict_tallies` and in `verdict_days`."""
    collection = verdict.collection or NONE
    useful = bool(verdict.useful)
    tally = {
        "model_id": verdict.model_id,
        "collection": collection,
        "shape": verdict.shape or NONE,
        "source": verdict.source or NONE,
        "useful": useful,
    }
    return tally, {"day": verdict.at.date(), "collection": collection, "useful": useful}


async def _count(connection: AsyncConnection, verdict: Row[Any]) -> None:
    cell, day = _cells(verdict)
    upsert = insert_for(connection)
    tally = upsert(verdict_tallies).values(**cell, judged=1, last_at=verdict.at)
    newer = case(
        (tally.excluded.last_at > verdict_tallies.c.last_at, tally.excluded.last_at),
        else_=verdict_tallies.c.last_at,
    )
    await connection.execute(
        tally.on_conflict_do_update(
            index_elements=list(cell), set_={"judged": verdict_tallies.c.judged + 1, "last_at": newer}
        )
    )
    days = upsert(verdict_days).values(**day, judged=1)
    await connection.execute(
        days.on_conflict_do_update(index_elements=list(day), set_={"judged": verdict_days.c.judged + 1})
    )


def _key(table: Table, values: _Cell) -> ColumnElement[bool]:
    return and_(*(table.c[name] == value for name, value in values.items()))


async def judged_per_model(
    connection: AsyncConnection, collection: str | None, source: str | None
) -> list[ModelTally]:
    """Per model with current verdicts (of `collection`'s calls, given from `source`, when named),
    retired models first, as the record lists them."""
    where = _narrowed(collection, source)
    useful = func.sum(case((verdict_tallies.c.useful, verdict_tallies.c.judged), else_=0))
    query = (
        select(
            models.c.alias, useful, func.sum(verdict_tallies.c.judged), func.max(verdict_tallies.c.last_at)
        )
        .join(models, models.c.id == verdict_tallies.c.model_id)
        .where(verdict_tallies.c.judged > 0, where)
        .group_by(models.c.id, models.c.alias, models.c.retired_at)
        .order_by(models.c.retired_at.is_(None), models.c.id)
    )
    rows = (await connection.execute(query)).all()
    return [ModelTally(alias, int(n_useful), int(n), last) for alias, n_useful, n, last in rows]


def _narrowed(collection: str | None, source: str | None) -> ColumnElement[bool]:
    """The cells of `collection` and `source`, each when named."""
    named = {"collection": collection, "source": source}
    return and_(
        true(), *(verdict_tallies.c[key] == value for key, value in named.items() if value is not None)
    )


async def judged_per_shape(
    connection: AsyncConnection, collection: str | None
) -> list[tuple[str, str, bool, int]]:
    """(alias now, shape, useful, how many) over current verdicts on evidence with a shape."""
    query = (
        select(
            models.c.alias,
            verdict_tallies.c.shape,
            verdict_tallies.c.useful,
            func.sum(verdict_tallies.c.judged),
        )
        .join(models, models.c.id == verdict_tallies.c.model_id)
        .where(verdict_tallies.c.judged > 0, verdict_tallies.c.shape != NONE, _narrowed(collection, None))
        .group_by(models.c.alias, verdict_tallies.c.shape, verdict_tallies.c.useful)
    )
    return [
        (alias, shape, bool(useful), int(n))
        for alias, shape, useful, n in (await connection.execute(query)).all()
    ]


async def judged_per_day(
    connection: AsyncConnection, first: date, last: date, collection: str | None
) -> list[tuple[date, bool, int]]:
    """(UTC day, useful, how many) over current verdicts given from `first` to `last`, both included."""
    where: ColumnElement[bool] = true() if collection is None else verdict_days.c.collection == collection
    query = (
        select(verdict_days.c.day, verdict_days.c.useful, func.sum(verdict_days.c.judged))
        .where(verdict_days.c.day >= first, verdict_days.c.day <= last, verdict_days.c.judged > 0, where)
        .group_by(verdict_days.c.day, verdict_days.c.useful)
    )
    return [(day, bool(useful), int(n)) for day, useful, n in (await connection.execute(query)).all()]


async def judged_sources(connection: AsyncConnection) -> list[str]:
    """Every source a current verdict was given from, sorted."""
    query = select(verdict_tallies.c.source).where(
        verdict_tallies.c.source != NONE, verdict_tallies.c.judged > 0
    )
    return sorted(set((await connection.execute(query.distinct())).scalars()))


async def recount(connection: AsyncConnection) -> None:
    """Count every current verdict afresh: for a store whose verdicts were written around `count_verdict`
    (the growth benchmark's bulk fill)."""
    current = is_current()
    utc = verdicts.c.at if connection.dialect.name == "sqlite" else func.timezone("UTC", verdicts.c.at)
    collection, useful = func.coalesce(evidence.c.collection, NONE), verdicts.c.useful
    cell = (
        evidence.c.model_id,
        collection,
        func.coalesce(evidence.c.shape, NONE),
        func.coalesce(verdicts.c.source, NONE),
        useful,
    )
    await connection.execute(delete(verdict_tallies))
    await connection.execute(delete(verdict_days))
    tallies = (
        select(*cell, func.count(), func.max(verdicts.c.at))
        .join(evidence, evidence.c.call == verdicts.c.call)
        .where(current)
        .group_by(*cell)
    )
    await connection.execute(
        insert(verdict_tallies).from_select([c.name for c in verdict_tallies.c], tallies)
    )
    day = func.date(utc)
    days = (
        select(day, collection, useful, func.count())
        .join(evidence, evidence.c.call == verdicts.c.call)
        .where(current)
        .group_by(day, collection, useful)
    )
    await connection.execute(insert(verdict_days).from_select([c.name for c in verdict_days.c], days))
