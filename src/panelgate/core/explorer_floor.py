"""The staleness floor: every model that may explore sits at least once in every K panels.

Seating by the record alone would stop asking a model the record has written
off, and its record would never change, even after its provider improved it.
The floor keeps every record fresh at a bounded cost: with K at the bench's
size and two explorer seats, at most about one seat a panel. A model is
seated only when waiting longer would break the floor for someone (earliest
deadline first, so a crowd of models coming due together is spread over the
panels before their deadlines). The default rule also lets a model sit a
few panels early when the panel's shape is the one its record knows least,
so the seats it must get anyway fill its thinnest record first.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Literal

from panelgate.core.evidence import EvidenceBook
from panelgate.core.types import ModelInfo

MIN_FLOOR = 10
"""The smallest default floor: on a small bench, every model sits at least once in 10 panels."""

EARLY_WINDOW_SHARE = 3
"""An early seat comes at most floor // 3 panels before the model's deadline."""

EarlyBy = Literal["thin", "gap", "spread"]
"""Where a model near its deadline may take an early seat: on the shape where it has the fewest
verdicts, the most promising of those (`thin`, the default: the seat fills the record where it is
thinnest, and where two are as thin, the one likelier to matter, for a good answer today and a
contender found sooner); on a shape where it is fewest posterior standard deviations below the
shape's best (`gap`); or on any of its fewest-judged shapes (`spread`)."""


def bench_size(roster: Mapping[str, ModelInfo]) -> int:
    """How many models could ever take an explorer seat (what the default floor grows with)."""
    return sum(
        1 for m in roster.values() if not m.retired and not m.ad_hoc and m.available and m.role != "image"
    )


def floor_panels(setting: int, bench_size: int) -> int:
    """K: every model that may explore sits at least once in every K panels.

    `setting` is the gateway's `explorer_floor`; 0 derives K from the bench:
    the number of models that may explore, at least `MIN_FLOOR`, so the floor
    costs about one explorer seat a panel whatever the bench's size.
    """
    return setting if setting > 0 else max(MIN_FLOOR, bench_size)


def overdue(alias: str, unseated_for: Mapping[str, int]) -> float:
    """Panels in a row the model has not sat (never sat: infinitely many)."""
    return float(unseated_for[alias]) if alias in unseated_for else float("inf")


def due_now(
    pool: Sequence[str],
    unseated_for: Mapping[str, int],
    floor: int,
    seats: int,
    preferred: Collection[str] = frozenset(),
) -> list[str]:
    """The models that must sit on this panel for every model to keep the floor, most overdue first
    (among those equally overdue, one on a preferred endpoint first).

    A model that has not sat for u panels in a row may skip K − 1 − u more.
    Sorted by u, the j-th model (from 0) cannot sit before j // seats panels
    from now; when that reaches what it may skip, the first seats go to the
    most overdue now.
    """
    if seats <= 0:
        return []
    order = sorted(pool, key=lambda alias: (-overdue(alias, unseated_for), alias not in preferred, alias))
    needed = 0
    for rank, alias in enumerate(order):
        if rank // seats >= floor - 1 - overdue(alias, unseated_for):
            needed = rank + 1
    return order[: min(seats, needed)]


def _gap(book: EvidenceBook, alias: str, shape: str) -> float:
    """How many posterior standard deviations the model sits below the best on `shape` (≤ 0)."""
    posterior = book.posterior(alias, shape)
    return (posterior.mean - book.best_mean(shape)) / posterior.spread


def _among_its_best(book: EvidenceBook, alias: str, shape: str, by: EarlyBy, top: int) -> bool:
    """True when `shape` is among the model's `top` shapes by the early rule."""
    if by == "thin":
        return book.thinner_records(alias, shape) < top
    if by == "spread":
        here_n = book.counts(alias, shape).judged
        better = sum(book.counts(alias, other).judged < here_n for other in book.shapes)
    else:
        gap = _gap(book, alias, shape)
        better = sum(_gap(book, alias, other) > gap for other in book.shapes if other != shape)
    return better < top


def early_seats(
    pool: Sequence[str],
    *,
    shape: str,
    book: EvidenceBook,
    unseated_for: Mapping[str, int],
    floor: int,
    window: int,
    by: EarlyBy = "thin",
    top: int = 1,
) -> list[str]:
    """Models within `window` panels of their deadline for whom `shape` is a good place to sit.

    An early seat moves a seat the floor owes to a better shape, and costs an
    extra seat now and then (the model's next deadline comes sooner). So the
    window is at most a third of the floor, and with a single shape of work
    on record there is nowhere to move the seat to, and nobody sits early.
    """
    window = min(window, floor // EARLY_WINDOW_SHARE)
    if window <= 0 or len(book.shapes) < 2:
        return []
    near = [
        alias
        for alias in pool
        if overdue(alias, unseated_for) >= floor - 1 - window and _among_its_best(book, alias, shape, by, top)
    ]
    return sorted(near, key=lambda alias: (-overdue(alias, unseated_for), alias))
