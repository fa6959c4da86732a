"""Which tasks to ask: the next few for a scheduled pass, and the quick sample for a new model.

Pure choices over what is on record. A scheduled pass spends a little every
run, so it asks first what the record lacks: a task a model never answered,
answered only in an earlier version, or whose saved answer is a rate-limit
failure (which says nothing about the model). Gaps are taken in turn across
models, so one model with many gaps does not hold back the rest. When no
gap is left, the oldest answers are asked again, so the record follows
models that change behind the same name.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from itertools import chain, zip_longest

from panelgate.suite.task import Task

QUICK_PER_SHAPE = 2
"""Tasks of each shape in the quick sample."""

Pair = tuple[str, str]
"""(model alias, task id)."""


@dataclass(frozen=True)
class Standing:
    """The newest saved answer of one model to one task."""

    asked_at: datetime
    digest: str
    status: str
    error_kind: str | None = None

    @property
    def rate_limited(self) -> bool:
        return self.status in ("error", "refused") and self.error_kind == "capacity"


def is_gap(task: Task, standing: Standing | None) -> bool:
    """Nothing on record, an answer to an earlier version of the task, or a saved rate-limit failure."""
    return standing is None or standing.digest != task.digest or standing.rate_limited


def pass_pairs(
    models: Sequence[str], tasks: Sequence[Task], newest: Mapping[Pair, Standing], limit: int
) -> list[Pair]:
    """Up to `limit` (model, task) pairs: gaps first, taken in turn across models, then the oldest answers."""
    gaps_by_model = [
        [(alias, task.id) for task in tasks if is_gap(task, newest.get((alias, task.id)))] for alias in models
    ]
    gaps = [pair for pair in chain.from_iterable(zip_longest(*gaps_by_model)) if pair is not None]
    answered = sorted(
        (
            (alias, task.id)
            for alias in models
            for task in tasks
            if not is_gap(task, newest.get((alias, task.id)))
        ),
        key=lambda pair: newest[pair].asked_at,
    )
    return (gaps + answered)[: max(0, limit)]


def quick_sample(tasks: Sequence[Task], per_shape: int = QUICK_PER_SHAPE) -> list[Task]:
    """A few tasks of every shape, the same ones every time, not just the first by name."""
    chosen: list[Task] = []
    for shape in sorted({task.shape for task in tasks}):
        of_shape = sorted((t for t in tasks if t.shape == shape), key=lambda t: _stable_order(t.id))
        chosen += of_shape[:per_shape]
    return chosen


def _stable_order(task_id: str) -> str:
    return hashlib.sha256(task_id.encode()).hexdigest()
