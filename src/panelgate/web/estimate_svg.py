"""The Record page's two pictures as inline-SVG geometry: an estimate on a 0–100 % bar, and verdicts per day.

The server draws them for the first paint (`templates/record.html` places
these coordinates, the theme's colours come from record.css); after that
`static/record.js` redraws them from `GET /api/record` with the same sizes
and formulas, so a redrawn page and a reloaded one look alike. A change
here is a change there.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

ESTIMATE_WIDTH = 200
ESTIMATE_HEIGHT = 18
ESTIMATE_PAD = 7
"""Room left and right of the 0–100 % track, so a dot at either end is whole."""

TIMELINE_WIDTH = 600
TIMELINE_HEIGHT = 160
TIMELINE_LEFT = 34
"""Room for the count labels left of the bars."""
TIMELINE_RIGHT = 22
"""Room for the last day's date, centred under its bar."""
TIMELINE_TOP = 12
TIMELINE_BOTTOM = 26
"""Room for the day labels under the bars."""
LABEL_EVERY = 7
"""Every 7th day, counted back from today, has its date under its bar."""
BAR_SHARE = 0.7
"""The share of a day's width its bar fills."""


def _tenth(value: float) -> float:
    return round(value, 1)


def percent(share: float) -> str:
    """A share as whole percent, halves rounded up as JavaScript's `Math.round` does (record.js)."""
    return f"{math.floor(share * 100 + 0.5)}%"


def hundredths(value: float) -> str:
    """Two decimals, halves rounded up as record.js rounds them (Python's format would round half to even)."""
    return f"{math.floor(value * 100 + 0.5) / 100:.2f}"


def share_x(share: float) -> float:
    """Where a share (0–1) sits on the estimate bar."""
    return _tenth(ESTIMATE_PAD + min(1.0, max(0.0, share)) * (ESTIMATE_WIDTH - 2 * ESTIMATE_PAD))


@dataclass(frozen=True)
class EstimateBar:
    """One model's estimate: the dot at its posterior mean, the band its 90 % interval."""

    dot: float
    band: float
    band_width: float
    words: str
    """What the picture says, for its `<title>` (the table's cells say it too)."""

    track = (share_x(0.0), share_x(1.0))
    grid = tuple(share_x(n / 4) for n in range(1, 4))
    width = ESTIMATE_WIDTH
    height = ESTIMATE_HEIGHT


def estimate_bar(row: dict[str, Any]) -> EstimateBar:
    """The picture of one standing (`engine/standings.py`'s row)."""
    low, high = share_x(row["low"]), share_x(row["high"])
    suite = row["suite"]
    words = (
        f"{row['alias']}: {percent(row['mean'])} useful, 90% interval {percent(row['low'])} to "
        f"{percent(row['high'])}, {row['judged']} verdict{'' if row['judged'] == 1 else 's'}"
        + (f", {suite} suite result{'' if suite == 1 else 's'}" if suite else "")
    )
    return EstimateBar(share_x(row["mean"]), low, _tenth(high - low), words)


@dataclass(frozen=True)
class DayBar:
    """One day's column: useful verdicts at the bottom, not useful stacked on them."""

    x: float
    useful_y: float
    useful_height: float
    not_useful_y: float
    not_useful_height: float
    words: str
    label: str
    """The date under the bar (`MM-DD`), or empty."""


@dataclass(frozen=True)
class TimelineChart:
    bars: list[DayBar]
    most: int
    """The count at the top of the scale."""
    bar_width: float
    width = TIMELINE_WIDTH
    height = TIMELINE_HEIGHT
    left = TIMELINE_LEFT
    right = TIMELINE_WIDTH - TIMELINE_RIGHT
    top = TIMELINE_TOP
    bottom = TIMELINE_HEIGHT - TIMELINE_BOTTOM

    @property
    def middle(self) -> float:
        return _tenth((self.top + self.bottom) / 2)


def scale_top(most: int) -> int:
    """The smallest of 1, 2, 5, 10, 20, 50, … at or above `most`."""
    step = 1
    while True:
        for nice in (1, 2, 5):
            if nice * step >= most:
                return nice * step
        step *= 10


def timeline_chart(days: Sequence[dict[str, Any]]) -> TimelineChart:
    """The columns of `GET /api/record`'s `timeline.days`, oldest left."""
    most = scale_top(max((d["useful"] + d["not_useful"] for d in days), default=0))
    bottom, top = TIMELINE_HEIGHT - TIMELINE_BOTTOM, TIMELINE_TOP
    step = (TIMELINE_WIDTH - TIMELINE_RIGHT - TIMELINE_LEFT) / max(1, len(days))
    width = step * BAR_SHARE

    def y(count: int) -> float:
        return _tenth(bottom - count / most * (bottom - top))

    bars = []
    for index, day in enumerate(days):
        useful, not_useful = day["useful"], day["not_useful"]
        labelled = (len(days) - 1 - index) % LABEL_EVERY == 0
        bars.append(
            DayBar(
                x=_tenth(TIMELINE_LEFT + index * step + (step - width) / 2),
                useful_y=y(useful),
                useful_height=_tenth(bottom - y(useful)),
                not_useful_y=y(useful + not_useful),
                not_useful_height=_tenth(y(useful) - y(useful + not_useful)),
                words=f"{day['day']}: {useful} useful, {not_useful} not useful",
                label=str(day["day"])[5:] if labelled else "",
            )
        )
    return TimelineChart(bars, most, _tenth(width))
