"""The Activity page's chart geometry and its per-endpoint series: bars stack, a line breaks where an hour
has no seats, the scale is a round number, and past the few biggest endpoints the rest are "other"."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from panelgate.http.dashboard.activity import NAMED_ENDPOINTS, Chart, Series, top_by_day
from panelgate.web.activity_svg import BOTTOM, HEIGHT, TOP, draw, nice_top

HOURS = [datetime(2025, 3, 2, tzinfo=UTC) + timedelta(hours=n) for n in range(4)]
PLOT = HEIGHT - BOTTOM - TOP
"""The plot's height, from the scale's top to its zero."""


def test_the_scale_tops_at_the_next_round_number() -> None:
    assert [nice_top(v) for v in (0, 1, 3, 7, 10, 11, 0.0003, 480)] == [1, 1, 5, 10, 10, 20, 0.0005, 500]


def test_counts_stack_so_the_tallest_hour_reaches_the_top_of_its_scale() -> None:
    chart = Chart("t", "Panels", "requests", [Series("a", [1, 0, 2, 3]), Series("b", [1, 0, 0, 2])])
    drawing = draw(chart, HOURS)
    a, b = drawing.series
    assert drawing.top_label == "5" and not drawing.empty  # 3 + 2 in the last hour
    assert [m.height for m in a.marks] == [round(PLOT * v / 5, 1) for v in (1, 2, 3)]
    last_a, last_b = a.marks[-1], b.marks[-1]
    assert last_b.y + last_b.height == last_a.y  # b sits on a
    assert (a.last, b.last) == ("3", "2")
    assert "a: 6 in all, most at 03:00 UTC (3)" in drawing.summary


def test_a_time_line_breaks_where_an_hour_had_no_seats() -> None:
    chart = Chart("s", "Seat time", "seconds", [Series("median", [1.5, None, 2.0, 2.5])], stacked=False)
    drawing = draw(chart, HOURS)
    (median,) = drawing.series
    assert len(median.lines) == 2 and len(median.marks) == 3
    assert drawing.top_label == "5.00 s" and median.last == "2.50 s"
    assert "median: from 1.50 s to 2.50 s (at 03:00 UTC)" in drawing.summary


def test_past_the_biggest_endpoints_the_rest_are_summed_as_other() -> None:
    values = {f"e{n}": {0: float(n + 1)} for n in range(NAMED_ENDPOINTS + 2)}
    series = top_by_day(values, 2)
    assert [s.name for s in series] == ["e5", "e4", "e3", "e2", "other"]
    assert series[-1].values == [3.0, 0.0]  # e1 and e0


def test_one_endpoint_past_the_few_is_named_rather_than_called_other() -> None:
    values = {f"e{n}": {1: 1.0} for n in range(NAMED_ENDPOINTS + 1)}
    assert [s.name for s in top_by_day(values, 2)] == [f"e{n}" for n in range(NAMED_ENDPOINTS + 1)]
