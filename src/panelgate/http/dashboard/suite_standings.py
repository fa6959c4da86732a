"""The Benchmarks page's standings: each model's suite tallies, and its confidently wrong answers.

A model on the bench with no answer on record still gets a row (its tally
None), so the page shows whom the suite has not asked yet.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from panelgate.store.records import ModelRecord
from panelgate.store.suite_book import SuiteAnswer
from panelgate.suite.results import ModelTally, ShapeTally
from panelgate.suite.scoring import Score
from panelgate.suite.task import CLAIM, CONTROL, JUDGEMENT_SHAPES


@dataclass(frozen=True)
class ModelRow:
    """One model's standing; `tally` is None when it has no answer on record."""

    model_id: int
    alias: str
    retired: bool
    tally: ModelTally | None

    def _total(self, name: str, shapes: Iterable[str] | None = None) -> int:
        tallies = self.tally.shapes if self.tally else ()
        return sum(getattr(t, name) for t in tallies if shapes is None or t.shape in shapes)

    def shape(self, name: str) -> ShapeTally:
        found = [t for t in self.tally.shapes if t.shape == name] if self.tally else []
        return found[0] if found else ShapeTally(name)

    @property
    def claims(self) -> ShapeTally:
        return self.shape(CLAIM)

    @property
    def controls(self) -> ShapeTally:
        return self.shape(CONTROL)

    @property
    def asked(self) -> int:
        return self._total("asked")

    @property
    def answered(self) -> int:
        return self._total("answered")

    @property
    def found(self) -> tuple[int, int]:
        """(must-find clauses found, clauses) over every answer that counts."""
        return self._total("found"), self._total("clauses")

    @property
    def recall(self) -> float | None:
        found, clauses = self.found
        return found / clauses if clauses else None

    @property
    def invented(self) -> int:
        """Answers that asserted something their task says they must not."""
        return self._total("invented")

    @property
    def invention_rate(self) -> float | None:
        return self.invented / self.answered if self.answered else None

    @property
    def judged(self) -> tuple[int, int]:
        """(claims and controls judged right, answered)."""
        return self._total("right", JUDGEMENT_SHAPES), self._total("answered", JUDGEMENT_SHAPES)


@dataclass(frozen=True)
class Wrong:
    """A model's confident mistakes: the judgement tasks it answered with what it must not claim."""

    model: ModelRow
    tasks: list[str]


def model_rows(models: Sequence[ModelRecord], tallies: Sequence[ModelTally]) -> list[ModelRow]:
    """Every model with answers on record, then every model on the bench without any; by name."""
    retired = {m.id for m in models if m.retired}
    rows = [ModelRow(t.model_id, t.alias, t.model_id in retired, t) for t in tallies]
    asked = {t.model_id for t in tallies}
    rows += [ModelRow(m.id, m.alias, False, None) for m in models if not m.retired and m.id not in asked]
    return sorted(rows, key=lambda row: (row.tally is None, row.alias.lower()))


def confidently_wrong(
    models: Sequence[ModelRecord], tallies: Sequence[ModelTally], answers: Sequence[SuiteAnswer]
) -> list[Wrong]:
    """Each model with suite answers or verified false claims, and the claims and controls it
    answered with confident mistakes."""
    retired = {m.id for m in models if m.retired}
    wrong: dict[int, list[str]] = {}
    for answer in answers:
        if answer.shape in JUDGEMENT_SHAPES and Score.from_json(answer.score).invented:
            wrong.setdefault(answer.model_id, []).append(answer.task_id)
    return [
        Wrong(ModelRow(t.model_id, t.alias, t.model_id in retired, t), sorted(wrong.get(t.model_id, [])))
        for t in sorted(tallies, key=lambda t: t.alias.lower())
    ]
