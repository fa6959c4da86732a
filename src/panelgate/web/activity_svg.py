"""The Activity page's small charts as inline-SVG geometry: stacked bars for counts, lines for times.

Drawn on the server (no chart library, nothing from a CDN): the template
places these coordinates and activity.css gives each series its theme's
colour by class, so one drawing serves both themes. Every chart carries its
words too: the `<title>`/`<desc>` a screen reader reads (each series' day
total or range and its busiest hour), a `<title>` per bar or point, and the
newest hour's values, shown under the chart's title.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from panelgate.http.dashboard.activity import Chart

WIDTH = 320
HEIGHT = 150
LEFT = 44
"""Room for the scale's numbers left of the plot."""
RIGHT = 16
"""Room for the newest hour's time, centred under its bar."""
TOP = 22
"""Room for the words of what the scale counts, over the plot."""
BOTTOM = 36
"""Room for the hour labels and the axis's words under the plot."""
BAR_SHARE = 0.75
LABEL_EVERY = 6
"""Every 6th hour, counted back from now, has its time under the plot."""
SEMANTIC = {"ok": "good", "useful": "good", "not useful": "bad", "empty": "s2", "other": "rest"}
"""Series whose colour says what they are; the rest take the palette in order (activity.css)."""
PALETTE = 5
FAILURES = ("bad", "s1", "s4", "s3", "s0")
"""The colours of a chart's `error: <kind>` series, in order: the first failure is drawn as one."""


def _tenth(value: float) -> float:
    return round(value, 1)


def nice_top(most: float) -> float:
    """The smallest of …, 0.1, 0.2, 0.5, 1, 2, 5, 10, … at or above `most` (1 when nothing was counted)."""
    if most <= 0:
        return 1
    step = 10.0 ** math.floor(math.log10(most))
    return next(nice * step for nice in (1, 2, 5, 10) if nice * step >= most * (1 - 1e-9))


def amount(value: float | None, unit: str) -> str:
    """A value in words a person reads at a glance: whole counts, two decimals of seconds, cents."""
    if value is None:
        return "none"
    if unit == "US dollars":
        return f"${value:,.4f}" if 0 < value < 0.01 else f"${value:,.2f}"
    if unit == "seconds":
        return f"{value:,.2f} s"
    return f"{value:,.0f}" if value == int(value) else f"{value:,.2f}"


@dataclass(frozen=True)
class Mark:
    """One drawn piece: a bar segment (x, y, width, height) or a point of a line (x, y)."""

    x: float
    y: float
    width: float
    height: float
    words: str


@dataclass(frozen=True)
class Drawn:
    """One series' marks, with the class its colour comes from and its line's points (lines only)."""

    name: str
    css: str
    marks: list[Mark]
    lines: list[str]
    """`points` attributes, one per unbroken run of hours with a value."""
    last: str
    """Its value in the newest hour, in words."""


@dataclass(frozen=True)
class Ticks:
    x: float
    label: str


@dataclass(frozen=True)
class Drawing:
    chart: Chart
    series: list[Drawn]
    top_label: str
    ticks: list[Ticks]
    summary: str
    """The chart in words, for screen readers (the SVG's `<desc>`)."""
    empty: bool
    width = WIDTH
    height = HEIGHT
    left = LEFT
    right = WIDTH - RIGHT
    top = TOP
    bottom = HEIGHT - BOTTOM

    @property
    def middle(self) -> float:
        return _tenth((self.top + self.bottom) / 2)

    @property
    def centre(self) -> float:
        return _tenth((self.left + self.right) / 2)


def draw(chart: Chart, hours: Sequence[datetime]) -> Drawing:
    """The geometry of `chart` over `hours` (oldest first)."""
    step = (WIDTH - RIGHT - LEFT) / max(1, len(hours))
    totals = [sum(s.values[h] or 0 for s in chart.series) for h in range(len(hours))]
    most = max(totals if chart.stacked else [v or 0 for s in chart.series for v in s.values], default=0)
    top = nice_top(most)
    bottom = HEIGHT - BOTTOM

    def y(value: float) -> float:
        return _tenth(bottom - value / top * (bottom - TOP))

    labels = [f"{at:%H:%M}" for at in hours]
    drawn = []
    below = [0.0] * len(hours)
    failures = iter(FAILURES * len(chart.series))
    for index, series in enumerate(chart.series):
        css = (
            next(failures)
            if series.name.startswith("error")
            else SEMANTIC.get(series.name, f"s{index % PALETTE}")
        )
        marks, lines, run = [], [], []
        for hour, value in enumerate(series.values):
            words = f"{labels[hour]} UTC, {series.name}: {amount(value, chart.unit)}"
            centre = LEFT + (hour + 0.5) * step
            if chart.stacked:
                if value:
                    base, height = y(below[hour]), _tenth(value / top * (bottom - TOP))
                    width = _tenth(step * BAR_SHARE)
                    marks.append(
                        Mark(_tenth(centre - width / 2), _tenth(base - height), width, height, words)
                    )
                    below[hour] += value
            elif value is not None:
                marks.append(Mark(_tenth(centre), y(value), 0, 0, words))
                run.append(f"{_tenth(centre)},{y(value)}")
            elif run:
                lines.append(" ".join(run))
                run = []
        if run:
            lines.append(" ".join(run))
        drawn.append(Drawn(series.name, css, marks, lines, amount(series.values[-1], chart.unit)))
    ticks = [
        Ticks(_tenth(LEFT + (hour + 0.5) * step), labels[hour])
        for hour in range(len(hours))
        if (len(hours) - 1 - hour) % LABEL_EVERY == 0
    ]
    empty = all(not value for series in chart.series for value in series.values)
    return Drawing(chart, drawn, amount(top, chart.unit), ticks, _summary(chart, labels), empty)


def _summary(chart: Chart, labels: Sequence[str]) -> str:
    """Each series over the day in a sentence: its total (counts) or its range (times), and its peak hour."""
    if not chart.series:
        return f"{chart.title}: nothing in the last 24 hours."
    parts = []
    for series in chart.series:
        known = [(value, hour) for hour, value in enumerate(series.values) if value is not None]
        peak, at = max(known, default=(None, 0))
        if not peak:
            parts.append(f"{series.name}: none")
        elif chart.stacked:
            total = sum(value for value, _ in known)
            parts.append(
                f"{series.name}: {amount(total, chart.unit)} in all, most at {labels[at]} UTC "
                f"({amount(peak, chart.unit)})"
            )
        else:
            low = min(value for value, _ in known)
            parts.append(
                f"{series.name}: from {amount(low, chart.unit)} to {amount(peak, chart.unit)} "
                f"(at {labels[at]} UTC)"
            )
    return f"{chart.title}, {scale_words(chart)} over the last 24 hours. " + "; ".join(parts) + "."


def scale_words(chart: Chart) -> str:
    """What the vertical scale counts, in plain words: counts are per hour, times are as measured."""
    return f"{chart.unit} per hour" if chart.stacked else chart.unit
