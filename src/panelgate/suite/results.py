"""What a model's suite answers add up to, per shape and overall.

Pure arithmetic over each model's newest answer to each task. Shapes are
kept apart because they measure different things: finding recall comes only
from shapes where there is something to find (bugs, seeded bugs,
enumerations, reviews), so a model that answers every claim TRUE or every
control `NO FAULT` gains no finding recall by it. Claims and controls are
judgements, counted as right or wrong.

*Confidently wrong* is the failure a reviewer pays for most: a model that
states, unasked to hedge, that correct code is faulty (a control answered
`FAULT`) or that a false statement about code is true (a false claim
answered `TRUE`). Both show up as an invention on a judgement task. Real
work adds the third part: the false claims people verified in the model's
panel answers (their verdicts' `false` claims).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import datetime

from panelgate.suite.scoring import Score
from panelgate.suite.task import CLAIM, CONTROL, JUDGEMENT_SHAPES


@dataclass(frozen=True)
class ScoredAnswer:
    """One model's newest answer to one task, as the tallies need it."""

    model_id: int
    alias: str
    task_id: str
    shape: str
    score: Score
    asked_at: datetime


@dataclass(frozen=True)
class ShapeTally:
    shape: str
    asked: int = 0
    answered: int = 0
    """Answers that count (non-answers left out)."""
    found: int = 0
    clauses: int = 0
    """Must-find clauses across the answers that count."""
    right: int = 0
    """Answers that found everything and invented nothing."""
    invented: int = 0
    """Answers asserting at least one must-not-claim clause."""

    @property
    def not_answered(self) -> int:
        return self.asked - self.answered

    @property
    def recall(self) -> float | None:
        return self.found / self.clauses if self.clauses else None

    def add(self, score: Score) -> ShapeTally:
        if not score.counted:
            return replace(self, asked=self.asked + 1)
        return ShapeTally(
            self.shape,
            self.asked + 1,
            self.answered + 1,
            self.found + len(score.found),
            self.clauses + len(score.found) + len(score.missed),
            self.right + score.right,
            self.invented + bool(score.invented),
        )


@dataclass(frozen=True)
class ModelTally:
    model_id: int
    alias: str
    shapes: tuple[ShapeTally, ...]
    last_asked: datetime | None
    verified_false: int = 0
    """False claims people verified in its panel answers (from verdicts, not the suite)."""

    def _finding(self) -> list[ShapeTally]:
        return [t for t in self.shapes if t.shape not in JUDGEMENT_SHAPES]

    def _invented_on(self, shape: str) -> int:
        return sum(t.invented for t in self.shapes if t.shape == shape)

    @property
    def findings(self) -> tuple[int, int]:
        """(must-find clauses found, clauses) on the finding shapes."""
        tallies = self._finding()
        return sum(t.found for t in tallies), sum(t.clauses for t in tallies)

    @property
    def finding_recall(self) -> float | None:
        found, clauses = self.findings
        return found / clauses if clauses else None

    @property
    def inventions(self) -> int:
        """Finding-shape answers that asserted something they must not (`NO FAULT` on a real bug, say)."""
        return sum(t.invented for t in self._finding())

    @property
    def false_alarms(self) -> int:
        """Controls (untouched code) answered with a fault."""
        return self._invented_on(CONTROL)

    @property
    def false_claims_believed(self) -> int:
        """False claims answered TRUE."""
        return self._invented_on(CLAIM)

    @property
    def confidently_wrong(self) -> int:
        return self.false_alarms + self.false_claims_believed + self.verified_false


def tally(answers: Iterable[ScoredAnswer]) -> list[ModelTally]:
    """Per model (by id, shown by its newest alias), per shape; models and shapes in name order."""
    shapes: dict[int, dict[str, ShapeTally]] = {}
    aliases: dict[int, tuple[datetime, str]] = {}
    for answer in answers:
        mine = shapes.setdefault(answer.model_id, {})
        mine[answer.shape] = mine.get(answer.shape, ShapeTally(answer.shape)).add(answer.score)
        seen = aliases.get(answer.model_id)
        if seen is None or answer.asked_at >= seen[0]:
            aliases[answer.model_id] = (answer.asked_at, answer.alias)
    tallies = [
        ModelTally(
            model_id=model_id,
            alias=aliases[model_id][1],
            shapes=tuple(by_shape[name] for name in sorted(by_shape)),
            last_asked=aliases[model_id][0],
        )
        for model_id, by_shape in shapes.items()
    ]
    return sorted(tallies, key=lambda t: (t.alias, t.model_id))
