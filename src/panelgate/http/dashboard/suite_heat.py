"""The Benchmarks page's heatmap: per shape of task, what each model's newest answer to each task scored.

Each result is a word and a symbol, so a cell says it without its colour.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from panelgate.http.dashboard.suite_standings import ModelRow
from panelgate.store.suite_book import SuiteAnswer
from panelgate.suite.scoring import Score
from panelgate.suite.task import SHAPES, Task

SHAPE_WORDS = {
    "claim": "Claims: is this statement about the code true?",
    "bug": "Bugs: name the faulty line",
    "control": "Controls: correct code, the right answer is NO FAULT",
    "seeded": "Seeded bugs: name the line where a fault was planted",
    "enumeration": "Enumerations: list every place something happens",
    "review": "Reviews: find the problems",
}
RESULTS = {
    "right": "✓",
    "partly": "◐",
    "wrong": "✗",
    "invented": "!",
    "not answered": "–",
    "not asked": "·",
}
"""Each heatmap result and the symbol that says it (the cell's colour says the same, never alone)."""
RESULT_WORDS = {
    "right": "found everything, invented nothing",
    "partly": "found some of what it should",
    "wrong": "found nothing it should",
    "invented": "claimed something it must not (a wrong verdict, a fault in correct code)",
    "not answered": "asked, but no answer counts (failed, refused, empty or too short)",
    "not asked": "no answer on record for the task as it is now",
}


@dataclass(frozen=True)
class Cell:
    task_id: str
    result: str
    detail: str = ""

    @property
    def symbol(self) -> str:
        return RESULTS[self.result]


@dataclass(frozen=True)
class HeatRow:
    model: ModelRow
    cells: list[Cell]

    @property
    def right(self) -> int:
        return sum(cell.result == "right" for cell in self.cells)

    @property
    def asked(self) -> int:
        return sum(cell.result != "not asked" for cell in self.cells)


@dataclass(frozen=True)
class ShapeHeat:
    """One shape's tasks as columns, one row per model."""

    shape: str
    tasks: list[Task]
    rows: list[HeatRow] = field(default_factory=list)

    @property
    def title(self) -> str:
        return SHAPE_WORDS.get(self.shape, self.shape)


def result_of(task_id: str, answer: SuiteAnswer | None) -> Cell:
    """What a model's newest answer to a task scored, as one heatmap word (and what lies behind it)."""
    if answer is None:
        return Cell(task_id, "not asked")
    score = Score.from_json(answer.score)
    if not score.counted:
        return Cell(task_id, "not answered", score.why_not)
    parts = [("found", score.found), ("missed", score.missed), ("invented", score.invented)]
    detail = "; ".join(f"{word}: {', '.join(labels)}" for word, labels in parts if labels)
    if score.invented:
        return Cell(task_id, "invented", detail)
    if score.right:
        return Cell(task_id, "right", detail)
    return Cell(task_id, "partly" if score.found else "wrong", detail)


def heatmap(
    rows: Sequence[ModelRow], runnable: Sequence[Task], every: Sequence[Task], answers: Sequence[SuiteAnswer]
) -> list[ShapeHeat]:
    """Per shape, in the suite's order: its runnable tasks (and drafts someone ran) by every model."""
    newest = {(a.model_id, a.task_id): a for a in answers}
    wanted = {t.id for t in runnable} | {a.task_id for a in answers}
    shown = [t for t in every if t.id in wanted]
    heat = []
    for shape in (*SHAPES, *sorted({t.shape for t in shown} - set(SHAPES))):
        tasks = [t for t in shown if t.shape == shape]
        if not tasks:
            continue
        lines = [
            HeatRow(row, [result_of(t.id, newest.get((row.model_id, t.id))) for t in tasks]) for row in rows
        ]
        heat.append(ShapeHeat(shape, tasks, lines))
    return heat
