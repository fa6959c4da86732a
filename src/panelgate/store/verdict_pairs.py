"""Pairwise verdicts kept and counted: "this seat's answer was better than that one's".

A useful/not-useful verdict says little when every seat of a panel was
useful; which answer was better is what a person comparing them side by
side knows best, and what a Bradley–Terry ranking per (model, shape) is fit
from. Each pair is a row of the verdict that said it (`verdict_better_than`),
so only the current verdict of a call counts and a later one supersedes its
pairs along with it.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import ColumnElement, func, insert, select, true
from sqlalchemy.ext.asyncio import AsyncConnection

from panelgate.store.current_verdicts import is_current
from panelgate.store.tables import evidence, models, verdict_better_than, verdicts


async def write_pairs(connection: AsyncConnection, verdict_id: int, losers: Sequence[str]) -> None:
    if losers:
        rows = [{"verdict": verdict_id, "loser": loser} for loser in losers]
        await connection.execute(insert(verdict_better_than), rows)


async def pairs_of(connection: AsyncConnection, verdict_ids: Sequence[int]) -> dict[int, tuple[str, ...]]:
    """Per verdict id among `verdict_ids` that named any: the calls it beat, sorted."""
    if not verdict_ids:
        return {}
    query = (
        select(verdict_better_than.c.verdict, verdict_better_than.c.loser)
        .where(verdict_better_than.c.verdict.in_(list(verdict_ids)))
        .order_by(verdict_better_than.c.verdict, verdict_better_than.c.loser)
    )
    found: dict[int, list[str]] = {}
    for verdict_id, loser in (await connection.execute(query)).all():
        found.setdefault(verdict_id, []).append(loser)
    return {verdict_id: tuple(losers) for verdict_id, losers in found.items()}


async def count_pairs(connection: AsyncConnection, collection: str | None) -> dict[tuple[str, str, str], int]:
    """(winner alias, loser alias, shape) → how many current verdicts say so (`Verdicts.pairwise_counts`)."""
    winner, loser = evidence.alias("winner"), evidence.alias("loser")
    winner_model, loser_model = models.alias("winner_model"), models.alias("loser_model")
    where: ColumnElement[bool] = true() if collection is None else winner.c.collection == collection
    query = (
        select(winner_model.c.alias, loser_model.c.alias, winner.c.shape, func.count())
        .select_from(verdict_better_than)
        .join(verdicts, verdicts.c.id == verdict_better_than.c.verdict)
        .join(winner, winner.c.call == verdicts.c.call)
        .join(loser, loser.c.call == verdict_better_than.c.loser)
        .join(winner_model, winner_model.c.id == winner.c.model_id)
        .join(loser_model, loser_model.c.id == loser.c.model_id)
        .where(is_current(), where, winner.c.model_id != loser.c.model_id)
        .group_by(
            winner_model.c.id, winner_model.c.alias, loser_model.c.id, loser_model.c.alias, winner.c.shape
        )
    )
    counts: dict[tuple[str, str, str], int] = {}
    for winner_alias, loser_alias, shape, count in (await connection.execute(query)).all():
        key = (winner_alias, loser_alias, shape or "general")
        counts[key] = counts.get(key, 0) + int(count)
    return counts
