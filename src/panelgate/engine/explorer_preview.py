"""The next explorer seats on each shape, from the record and the seating clock as seating reads them.

`core/explorer_preview.py` orders the candidates; this gathers what it
reads, the way a panel's seating does (`engine/panel.py`,
`engine/seating_evidence.py`): the bench and its limits, the record's
evidence book, the floor, and how many panels in a row each model has gone
unseated (from when each last sat and the times of the newest panels).

Narrowed to a collection, its members and merger hold no explorer seat and
the seats left are the collection's (`max_calls` less its members, at most
`max_explorers`); otherwise every model that may explore is a candidate for
`max_explorers` seats.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Mapping, Sequence

from panelgate.core.explorer_floor import MIN_FLOOR, bench_size, floor_panels
from panelgate.core.explorer_preview import ShapePreview, preview_shape
from panelgate.core.types import CollectionInfo, GatewayLimits, ModelInfo
from panelgate.engine.record_book import RecordBook
from panelgate.store import Database


async def unseated_for(
    db: Database, roster: Mapping[str, ModelInfo], limits: GatewayLimits
) -> dict[str, int]:
    """Panels in a row each model has not sat, counted as `engine/seating_evidence.py` counts them."""
    # twice the longest floor the bench can have: a model unseated that long is due either way
    depth = 2 * max(limits.explorer_floor, len(roster), MIN_FLOOR)
    times = await db.panels.recent_times(depth)
    last_seated = await db.panels.last_seated(cached=True)
    return {alias: len(times) - bisect_right(times, at) for alias, at in last_seated.items()}


def explorer_seats(limits: GatewayLimits, collection: CollectionInfo | None) -> int:
    """Explorer seats a panel of `collection` has (of any collection: `max_explorers`)."""
    if collection is None:
        return limits.max_explorers
    return max(0, min(limits.max_explorers, limits.max_calls - len(collection.members)))


async def preview_explorers(
    db: Database, shapes: Sequence[str], collection: CollectionInfo | None = None
) -> list[ShapePreview]:
    """Per shape of `shapes`, the candidates for the next panel's explorer seats in the rule's order."""
    bench = await db.bench.snapshot()
    roster, limits = bench.roster, bench.limits
    book = await RecordBook(db).current(roster)
    unseated = await unseated_for(db, roster, limits)
    taken = () if collection is None else (*collection.members, *filter(None, [collection.merger]))
    return [
        preview_shape(
            roster,
            shape=shape,
            seats=explorer_seats(limits, collection),
            floor=floor_panels(limits.explorer_floor, bench_size(roster)),
            rule=limits.explorer_rule,
            book=book,
            unseated_for=unseated,
            taken=taken,
        )
        for shape in shapes
    ]
