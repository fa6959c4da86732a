"""Benchmarks: how each model does on the review suite, task by task, and how fast it answers.

A person opens this page to choose whom to trust with a review: who finds
the most, who invents the least, who states wrong things with confidence,
and who is quick. It reads what `/api/suite/status` and `/api/suite/answers`
read (each model's newest answer to each task as the task is now, through
the suite's desk) and the newest speed probes `/api/health` shows.

The recall-against-invention view counts every answer, judgements included:
finding recall alone (the suite's headline, kept in the table beside it)
leaves a model that was only asked claims and controls off the chart. An
answer *invented* when it asserted what its task says it must not.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from fastapi import APIRouter, Request
from starlette.responses import HTMLResponse

from panelgate.http.services import Services
from panelgate.store.health_book import ProbeRecord
from panelgate.store.records import ModelRecord
from panelgate.store.suite_book import SuiteAnswer
from panelgate.suite.desk import SuiteDesk
from panelgate.suite.results import ModelTally, ShapeTally
from panelgate.suite.scoring import Score
from panelgate.suite.task import CLAIM, CONTROL, JUDGEMENT_SHAPES, SHAPES, Task
from panelgate.web.frame import render

router = APIRouter(include_in_schema=False)
SPEED_PROBES = ("speed-tiny", "speed-large")
SPEED_SINCE = timedelta(days=365)
LABEL_FLIP = 0.7
"""A chart point further right than this share has its name on its left, inside the plot."""
LABEL_STEP = 14
"""The chart's line height for the names of models on the same spot."""
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


@dataclass(frozen=True)
class Wrong:
    """A model's confident mistakes: the judgement tasks it answered with what it must not claim."""

    model: ModelRow
    tasks: list[str]


@dataclass(frozen=True)
class Speed:
    alias: str
    short: ProbeRecord | None
    long: ProbeRecord | None


@router.get("/benchmarks")
async def benchmarks_page(request: Request) -> HTMLResponse:
    services: Services = request.app.state.services
    desk = SuiteDesk(services.db, services.upstream, services.settings.data_dir)
    catalogue = await desk.catalogue()
    answers = await desk.current_answers()
    models = await services.db.models.list(include_retired=True)
    tallies = await desk.standings()
    rows = model_rows(models, [t for t in tallies if t.shapes])
    return await render(
        request,
        "benchmarks",
        rows=rows,
        answered=any(row.tally for row in rows),
        on_bench=any(not m.retired for m in models),
        chart=Chart.of(rows),
        heat=heatmap(rows, catalogue.runnable(), list(catalogue.tasks.values()), answers),
        wrong=confidently_wrong(models, tallies, answers),
        speeds=await speeds(services, models),
        results=RESULTS,
        result_words=RESULT_WORDS,
        claim=CLAIM,
        control=CONTROL,
    )


def model_rows(models: Sequence[ModelRecord], tallies: Sequence[ModelTally]) -> list[ModelRow]:
    """Every model with answers on record, then every model on the bench without any; by name."""
    retired = {m.id for m in models if m.retired}
    rows = [ModelRow(t.model_id, t.alias, t.model_id in retired, t) for t in tallies]
    asked = {t.model_id for t in tallies}
    rows += [ModelRow(m.id, m.alias, False, None) for m in models if not m.retired and m.id not in asked]
    return sorted(rows, key=lambda row: (row.tally is None, row.alias.lower()))


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


async def speeds(services: Services, models: Sequence[ModelRecord]) -> list[Speed]:
    """The newest speed test of every model on the bench, and of retired models that had one."""
    since = datetime.now(UTC) - SPEED_SINCE
    probes = await services.db.health.latest_probes([m.id for m in models], since)
    found = []
    for model in sorted(models, key=lambda m: (m.retired, m.alias.lower())):
        newest = probes.get(model.id, {})
        short, long = (newest.get(kind) for kind in SPEED_PROBES)
        if not model.retired or short or long:
            found.append(Speed(model.alias, short, long))
    return found


# ---- the chart ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Point:
    alias: str
    x: float
    y: float
    label_x: float
    label_y: float
    anchor: str
    recall: float
    invention_rate: float


@dataclass(frozen=True)
class Chart:
    """Recall (up) against the share of answers that invented (right): the best sit top left.

    Drawn as inline SVG by the template from these coordinates; its colours
    are the theme's, set in benchmarks.css. The table beside it says the same.
    """

    points: list[Point]
    left_out: list[str]
    """Models with answers but no must-find clause among them (nothing to put on the recall axis)."""
    width: int = 480
    height: int = 320
    left: int = 56
    right: int = 24
    top: int = 16
    bottom: int = 48

    @classmethod
    def of(cls, rows: Sequence[ModelRow]) -> Chart:
        chart = cls([], [])
        for row in rows:
            if row.tally is None:
                continue
            recall, rate = row.recall, row.invention_rate
            if recall is None or rate is None:
                chart.left_out.append(row.alias)
            else:
                chart.points.append(chart._point(row.alias, recall, rate))
        return chart

    def _point(self, alias: str, recall: float, rate: float) -> Point:
        """A model's dot; models on the same spot get their names one under another."""
        x, y = self.x_of(rate), self.y_of(recall)
        label_y = y + 4 + LABEL_STEP * sum(1 for p in self.points if (p.x, p.y) == (x, y))
        if rate > LABEL_FLIP:
            return Point(alias, x, y, x - 9, label_y, "end", recall, rate)
        return Point(alias, x, y, x + 9, label_y, "start", recall, rate)

    @property
    def plot_right(self) -> int:
        return self.width - self.right

    @property
    def plot_bottom(self) -> int:
        return self.height - self.bottom

    def x_of(self, share: float) -> float:
        return round(self.left + share * (self.plot_right - self.left), 1)

    def y_of(self, share: float) -> float:
        return round(self.plot_bottom - share * (self.plot_bottom - self.top), 1)

    @property
    def ticks(self) -> list[tuple[float, float, str]]:
        """(x, y, label) of each gridline: 0 %, 25 %, 50 %, 75 %, 100 % on both axes."""
        return [(self.x_of(n / 4), self.y_of(n / 4), f"{25 * n}%") for n in range(5)]
