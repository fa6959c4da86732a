"""Benchmarks: how each model does on the review suite, task by task, and how fast it answers.

A person opens this page to choose whom to trust with a review: who finds
the most, who invents the least, who states wrong things with confidence,
and who is quick. `http/dashboard/benchmarks.py` reads what it shows, as
`/api/suite/status`, `/api/suite/answers` and `/api/health` read it; this
module renders it and draws the chart.

The recall-against-invention view counts every answer, judgements included:
finding recall alone (the suite's headline, kept in the table beside it)
leaves a model that was only asked claims and controls off the chart. An
answer *invented* when it asserted what its task says it must not.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from fastapi import APIRouter, Request
from starlette.responses import HTMLResponse

from panelgate.http.dashboard.benchmarks import read_benchmarks
from panelgate.http.dashboard.suite_heat import RESULT_WORDS, RESULTS
from panelgate.http.dashboard.suite_standings import ModelRow
from panelgate.http.services import services
from panelgate.web.frame import render

router = APIRouter(include_in_schema=False)
LABEL_FLIP = 0.7
"""A chart point further right than this share has its name on its left, inside the plot."""
LABEL_STEP = 14
"""The chart's line height for the names of models on the same spot."""


@router.get("/benchmarks")
async def benchmarks_page(request: Request) -> HTMLResponse:
    found = await read_benchmarks(services(request))
    return await render(
        request,
        "benchmarks",
        rows=found.rows,
        answered=any(row.tally for row in found.rows),
        on_bench=found.on_bench,
        chart=Chart.of(found.rows),
        heat=found.heat,
        wrong=found.wrong,
        speeds=found.speeds,
        results=RESULTS,
        result_words=RESULT_WORDS,
    )


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
