"""The record as the evidence rule reads it: current verdicts and suite results per (model, shape).

Seating reads this on every panel the evidence rule seats, so it is one
grouped query over the counts of current verdicts kept as they are written
(`verdict_tallies.py`: a later verdict supersedes an earlier one), on
evidence that has a shape, keyed by the model's alias now. Failed seats are
never judged (`verdict_rules`), so every verdict counted here is about an
answer.

Review-suite results are a second grouped query on the same connection: each
model's newest answer to each task (a re-run replaces the earlier answer, as
a later verdict does; the Benchmarks page shows the same standing), right when
it passed, wrong when it counted but did not, and nothing when it was no
answer at all (a failure or refusal is health, not usefulness). A task's
shape counts as the shape of work of the same name (`enumeration`, `review`)
and every other kind (claims, bugs, controls, seeded bugs) as `review`: each
is a question about code under review. An answer to an earlier version of a
task, or to a task since removed, still counts until the model is asked
again (the store does not read the task folders).

`collection` narrows it to the evidence of one collection, as the record
(`GET /bench/record?collection=`) shows it; seating always reads the whole
bench. Suite results belong to no collection: they are bench-wide evidence,
counted in the bench-wide read only.
"""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncConnection

from panelgate.core.evidence import Counts
from panelgate.core.types import SHAPES
from panelgate.store.tables import models, suite_answers
from panelgate.store.verdict_tallies import judged_per_shape

SUITE_SHAPE = "review"
"""The shape of work a suite task counts on unless its own kind is one."""


async def read_evidence_counts(
    connection: AsyncConnection, collection: str | None = None
) -> dict[tuple[str, str], Counts]:
    """Useful and not-useful current verdicts per (alias, shape), on `collection`'s evidence when given;
    the bench-wide read adds each model's suite results right and wrong."""
    counts: dict[tuple[str, str], Counts] = {}
    for alias, shape, useful, number in await judged_per_shape(connection, collection):
        cell = Counts(useful=number) if useful else Counts(not_useful=number)
        counts[(alias, shape)] = counts.get((alias, shape), Counts()) + cell
    if collection is None:
        for (alias, shape), cell in (await _suite_counts(connection)).items():
            counts[(alias, shape)] = counts.get((alias, shape), Counts()) + cell
    return counts


async def _suite_counts(connection: AsyncConnection) -> dict[tuple[str, str], Counts]:
    """Suite results right and wrong per (alias now, shape of work), from each model's newest answer
    to each task."""
    newest = (
        select(func.max(suite_answers.c.id).label("id"))
        .group_by(suite_answers.c.model_id, suite_answers.c.task_id)
        .subquery()
    )
    query = (
        select(models.c.alias, suite_answers.c.shape, suite_answers.c.passed, func.count())
        .select_from(suite_answers)
        .join(newest, newest.c.id == suite_answers.c.id)
        .join(models, models.c.id == suite_answers.c.model_id)
        .where(suite_answers.c.counted)
        .group_by(models.c.alias, suite_answers.c.shape, suite_answers.c.passed)
    )
    counts: dict[tuple[str, str], Counts] = {}
    for alias, kind, passed, number in (await connection.execute(query)).all():
        key = (alias, kind if kind in SHAPES else SUITE_SHAPE)
        cell = Counts(suite_right=number) if passed else Counts(suite_wrong=number)
        counts[key] = counts.get(key, Counts()) + cell
    return counts
