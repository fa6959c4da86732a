"""The record as the evidence rule reads it: current verdicts per (model, shape), in one query.

Seating reads this on every panel the evidence rule seats, so it is one
grouped query over the current verdict of each judged call (a later verdict
supersedes an earlier one) on evidence that has a shape, keyed by the model's
alias now. Failed seats are never judged (`verdict_rules`), so every verdict
counted here is about an answer.

`collection` narrows it to the evidence of one collection, as the record
(`GET /bench/record?collection=`) shows it; seating always reads the whole
bench.
"""

from __future__ import annotations

from sqlalchemy import ColumnElement, func, select, true
from sqlalchemy.ext.asyncio import AsyncConnection

from panelgate.core.evidence import Counts
from panelgate.store.current_verdicts import current_verdict_ids
from panelgate.store.tables import evidence, models, verdicts


async def read_evidence_counts(
    connection: AsyncConnection, collection: str | None = None
) -> dict[tuple[str, str], Counts]:
    """Useful and not-useful current verdicts per (alias, shape), on `collection`'s evidence when given."""
    where: ColumnElement[bool] = true() if collection is None else evidence.c.collection == collection
    latest = current_verdict_ids()
    query = (
        select(models.c.alias, evidence.c.shape, verdicts.c.useful, func.count())
        .select_from(verdicts)
        .join(latest, latest.c.id == verdicts.c.id)
        .join(evidence, evidence.c.call == verdicts.c.call)
        .join(models, models.c.id == evidence.c.model_id)
        .where(evidence.c.shape.is_not(None), where)
        .group_by(models.c.alias, evidence.c.shape, verdicts.c.useful)
    )
    counts: dict[tuple[str, str], Counts] = {}
    for alias, shape, useful, number in (await connection.execute(query)).all():
        cell = Counts(useful=number) if useful else Counts(not_useful=number)
        counts[(alias, shape)] = counts.get((alias, shape), Counts()) + cell
    return counts
