"""The newest current verdicts one by one, for the Record page.

The record's tallies say how a model is doing; this says who has been
judging: each verdict with its model, the key that gave it (`actor`) and
where from (`source`, e.g. `claude-code`), so a person can tell their own
verdicts from an agent's. Superseded verdicts are left out, as everywhere
the record is read (`current_verdicts.py`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import ColumnElement, and_, select, true
from sqlalchemy.ext.asyncio import AsyncConnection

from panelgate.store.current_verdicts import is_current
from panelgate.store.tables import evidence, models, verdicts


@dataclass(frozen=True)
class ListedVerdict:
    call: str
    alias: str
    useful: bool
    actor: str
    source: str | None
    at: datetime


def _narrowed(collection: str | None, source: str | None) -> ColumnElement[bool]:
    where: ColumnElement[bool] = true()
    if collection is not None:
        where = and_(where, evidence.c.collection == collection)
    if source is not None:
        where = and_(where, verdicts.c.source == source)
    return where


async def newest_verdicts(
    connection: AsyncConnection, collection: str | None, source: str | None, most: int
) -> list[ListedVerdict]:
    """The `most` newest current verdicts (of `collection`'s calls, given from `source`, when named)."""
    query = (
        select(
            verdicts.c.call,
            models.c.alias,
            verdicts.c.useful,
            verdicts.c.actor,
            verdicts.c.source,
            verdicts.c.at,
        )
        .select_from(verdicts)
        .join(evidence, evidence.c.call == verdicts.c.call)
        .join(models, models.c.id == evidence.c.model_id)
        .where(is_current(), _narrowed(collection, source))
        .order_by(verdicts.c.id.desc())
        .limit(max(1, most))
    )
    rows = (await connection.execute(query)).all()
    return [
        ListedVerdict(row.call, row.alias, bool(row.useful), row.actor, row.source, row.at) for row in rows
    ]
