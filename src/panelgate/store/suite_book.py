"""The review suite's answers: every answer kept, the newest per model and task read back as its standing.

A model is keyed by its id, which a rename keeps, so a renamed model keeps
its record; the alias, endpoint and served id at the time are kept beside
it for people. Scores are stored as the suite's JSON form: this room stores
them and never reads inside them (the rules live in `suite.scoring`); whether
an answer passed is the suite's to say and is kept beside it, for the record
(`evidence_counts`) to count.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime
from typing import Any

from sqlalchemy import Row, func, insert, select

from panelgate.store.connections import Connections
from panelgate.store.tables import suite_answers

MAX_ANSWER_CHARS = 200_000
"""What is kept of an answer's text (the score was made from the whole of it)."""


@dataclass(frozen=True)
class SuiteAnswer:
    task_id: str
    task_digest: str
    shape: str
    model_id: int
    alias: str
    endpoint: str
    served_id: str
    asked_at: datetime
    caller: str
    status: str
    """ok, empty, error, or refused (not sent: a rate limit would have refused it)."""
    counted: bool
    """Whether it is an answer at all (a failure, refusal or too-short reply is not)."""
    passed: bool = False
    """Counted, found everything and invented nothing (`Score.right`): a suite result right on the record."""
    score: dict[str, Any] = field(default_factory=dict)
    error_kind: str | None = None
    error: str = ""
    answer: str = ""
    seconds: float = 0.0
    tokens_in: int | None = None
    tokens_out: int | None = None
    id: int | None = None


class SuiteBook:
    def __init__(self, connections: Connections, *, on_added: Callable[[], None]) -> None:
        """`on_added` is told after each answer is kept: the record's evidence counts it, so a copy of
        them kept for seating must be dropped."""
        self._connections = connections
        self._on_added = on_added

    async def add(self, answer: SuiteAnswer) -> SuiteAnswer:
        kept = replace(answer, answer=answer.answer[:MAX_ANSWER_CHARS])
        values = {k: v for k, v in asdict(kept).items() if k != "id"}
        async with self._connections.write(edits_config=False) as connection:
            inserted = await connection.execute(
                insert(suite_answers).values(**values).returning(suite_answers.c.id)
            )
            kept = replace(kept, id=inserted.scalar_one())
        self._on_added()
        return kept

    async def newest(self, *, model_ids: Collection[int] | None = None) -> list[SuiteAnswer]:
        """The newest answer of each model to each task (only these models' when given)."""
        latest = select(func.max(suite_answers.c.id)).group_by(
            suite_answers.c.model_id, suite_answers.c.task_id
        )
        if model_ids is not None:
            latest = latest.where(suite_answers.c.model_id.in_(list(model_ids)))
        query = select(suite_answers).where(suite_answers.c.id.in_(latest)).order_by(suite_answers.c.id)
        async with self._connections.read() as connection:
            return [_answer(row) for row in (await connection.execute(query)).all()]


def _answer(row: Row[Any]) -> SuiteAnswer:
    fields = row._mapping
    return SuiteAnswer(**{name: fields[name] for name in SuiteAnswer.__dataclass_fields__})
