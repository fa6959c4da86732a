"""The bars a run is held to (issue 23's), each beside what the floor allows that run.

A ratio bar compares panelgate with a gateway measured in the same run. A
gateway that added nothing would answer at the floor's rate (each of its
upstream calls at the upstream's own latency), so the floor's rate over the
other gateway's is the highest ratio any gateway could score in that run:
printed beside the bar, it says whether the bar was within reach at all.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from report import FLOOR, Row, find

Measure = Literal["ratio", "p50 over floor", "first byte over floor", "p99 / p50"]


@dataclass(frozen=True)
class Bar:
    """One bar: `measure` of panelgate's row at (`stream`, `concurrency`) must stay within `limit`."""

    measure: Measure
    stream: bool
    concurrency: int
    limit: float


PANEL_BARS = (
    Bar("ratio", False, 64, 25.0),
    Bar("ratio", True, 64, 20.0),
    Bar("p50 over floor", False, 16, 5.0),
    Bar("first byte over floor", True, 64, 20.0),
    Bar("p99 / p50", False, 256, 3.0),
)
"""Issue 23's bars for one process beside the reference."""

ROUTE_BARS = (
    Bar("p50 over floor", False, 16, 5.0),
    Bar("p50 over floor", True, 16, 5.0),
    Bar("ratio", False, 64, 30.0),
    Bar("ratio", True, 64, 30.0),
)
"""Route mode's: within 5 ms of the floor at c=16, and issue 23's 30× LiteLLM's turns/s at c=64."""


def _gap(value: float | None, floor: float | None) -> float | None:
    return None if value is None or floor is None else value - floor


def _judge(
    bar: Bar, rows: list[Row], ours: str, theirs: str | None, unit: str
) -> tuple[str, str, str, str] | None:
    """(what the bar asks, what was measured, the floor's reach, met) for one bar, None without data."""
    mine, floor = (
        find(rows, ours, bar.stream, bar.concurrency),
        find(rows, FLOOR, bar.stream, bar.concurrency),
    )
    if mine is None or floor is None:
        return None
    c = bar.concurrency
    if bar.measure == "ratio":
        other = find(rows, theirs, bar.stream, c)
        if other is None or not other.rate:
            return None
        ratio, reach = mine.rate / other.rate, floor.rate / other.rate
        asks = f"c{c} {unit}/s ≥ {bar.limit:g}× {theirs}'s"
        measured = f"{ratio:.1f}× ({mine.rate:.0f} vs {other.rate:.1f})"
        return asks, measured, f"{reach:.1f}× ({floor.rate:.0f}/s)", "yes" if ratio >= bar.limit else "no"
    if bar.measure == "p99 / p50":
        if mine.p99_ms is None or not mine.p50_ms or floor.p99_ms is None or not floor.p50_ms:
            return None
        spread = mine.p99_ms / mine.p50_ms
        measured = f"{spread:.2f}× ({mine.p99_ms:.0f} / {mine.p50_ms:.0f} ms)"
        reach = f"{floor.p99_ms / floor.p50_ms:.2f}×"
        return f"c{c} p99 ≤ {bar.limit:g}× p50", measured, reach, "yes" if spread <= bar.limit else "no"
    first_byte = bar.measure == "first byte over floor"
    gap = _gap(mine.ttfb_p50_ms, floor.ttfb_p50_ms) if first_byte else _gap(mine.p50_ms, floor.p50_ms)
    if gap is None:
        return None
    what = "first byte p50" if first_byte else "p50"
    asks = f"c{c} {what} within {bar.limit:g} ms of the floor's"
    return asks, f"{gap:+.1f} ms", "+0.0 ms", "yes" if gap <= bar.limit else "no"


def table(
    bars: tuple[Bar, ...], rows: list[Row], ours: str | None, theirs: str | None, unit: str
) -> list[str]:
    """The bars this run measured, each with its figure, the best a gateway adding nothing would get
    (the floor's), and whether it was met; [] when none was measured."""
    if ours is None:
        return []
    lines = [
        "| mode | bar | measured | a gateway adding nothing | met |",
        "|---|---|---:|---:|---|",
    ]
    for bar in bars:
        judged = _judge(bar, rows, ours, theirs, unit)
        if judged is not None:
            mode = "streamed" if bar.stream else "non-streamed"
            lines.append(f"| {mode} | {' | '.join(judged)} |")
    return lines if len(lines) > 2 else []
