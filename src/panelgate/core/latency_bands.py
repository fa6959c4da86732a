"""Latency bands: the upper bounds a day of seat times is counted in, and percentiles read back from them.

The Activity page shows each hour's median and 95th-percentile seat time.
Sorting a day of seats in the database is not portable (SQLite has no
percentile) and fetching every time to sort here would grow with traffic;
counting seats per band is one grouped query of fixed size whatever the
traffic, and a percentile is then placed within its band by straight-line
interpolation, as Prometheus' `histogram_quantile` does. The bands are
narrow where seats usually answer, so the estimate is close.
"""

from __future__ import annotations

from collections.abc import Sequence

BOUNDS: tuple[float, ...] = (
    0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 1.5, 2, 3, 4, 5, 6.5, 8, 10, 13, 16, 20,
    25, 30, 40, 50, 60, 90, 120, 180, 300,
)  # fmt: skip
"""Each band's upper bound in seconds; the last band (index `len(BOUNDS)`) holds everything slower."""


def percentile(counts: Sequence[int], share: float) -> float | None:
    """The time under which `share` (0–1) of the counted seats fell; None when none were counted.

    `counts[i]` is how many fell in band `i`; a percentile in the open last
    band is reported as the last bound (slower than that is all it can say)."""
    total = sum(counts)
    if total == 0:
        return None
    wanted = share * total
    below = 0
    for band, count in enumerate(counts):
        if count and below + count >= wanted:
            if band >= len(BOUNDS):
                return BOUNDS[-1]
            low = BOUNDS[band - 1] if band else 0.0
            return low + (BOUNDS[band] - low) * (wanted - below) / count
        below += count
    return BOUNDS[-1]
