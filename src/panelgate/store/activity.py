"""The gateway's figures hour by hour over the last day, read from what the store keeps.

`/metrics` counts since its process started and forgets at a restart; these
are the same figures from the records themselves, for the Activity page's
charts. Each reading is one grouped query bounded to the day by an indexed
time column (`activity_hours.py`): panels and route turns with the turns'
failovers (`panels.at`, `route_turns.at`), seats by outcome and latency band
(through their panel's time), upstream calls per endpoint and served id
(`usage_ledger.at`), and verdicts (`verdicts.at`). Pacing's waits and refusals are not kept
(a refused call was never sent, so the ledger has no row for it): only
`/metrics` counts them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Select, and_, case, func, literal, select, union_all

from panelgate.core.latency_bands import BOUNDS
from panelgate.store.activity_hours import Hours
from panelgate.store.database import Database
from panelgate.store.tables import panels, route_turns, seats, usage_ledger, verdicts

OTHER_FAILURE = "gateway"
"""The kind of a seat that failed without an upstream's word (its endpoint gone, a fault of ours)."""


@dataclass(frozen=True)
class Traffic:
    """Per hour: panels, callers' route turns, and their failovers (a member failed, the next was asked)."""

    panels: list[int]
    route_turns: list[int]
    failovers: list[int]


@dataclass(frozen=True)
class SeatCount:
    hour: int
    status: str
    """ok, empty or error."""
    kind: str
    """An error's kind (`timeout`, `capacity`, … or `gateway`); empty for ok and empty seats."""
    band: int
    """Its time's band in `core.latency_bands.BOUNDS` (`len(BOUNDS)`: slower than the last)."""
    seats: int


@dataclass(frozen=True)
class CallCount:
    """Upstream calls to one served id on one endpoint in one hour, with what they spent."""

    hour: int
    endpoint: str
    served_id: str
    calls: int
    errors: int
    tokens_in: int
    tokens_out: int
    untallied: int
    """Answered calls whose token counts the upstream did not report (their cost is unknown)."""


@dataclass(frozen=True)
class VerdictCount:
    hour: int
    useful: bool
    verdicts: int


async def traffic(db: Database, hours: Hours) -> Traffic:
    """Panels and route turns per hour, one query over both tables."""
    tried = func.json_array_length(route_turns.c.tried)
    # Each member in `tried` failed and the next was asked, but for the last when nobody answered.
    failovers = case((route_turns.c.alias != "", tried), (tried > 0, tried - 1), else_=0)
    started = select(hours.index_of(panels.c.at).label("hour"), literal("panel").label("what"))
    started = started.add_columns(literal(0).label("failovers")).where(*hours.within(panels.c.at))
    turns = select(hours.index_of(route_turns.c.at), literal("turn"), failovers).where(
        *hours.within(route_turns.c.at), route_turns.c.purpose == "turn"
    )
    both = union_all(started, turns).subquery()
    # grouped outside: PostgreSQL would not take the CASE in GROUP BY as the one selected (new parameters)
    query = select(both.c.hour, both.c.what, func.count(), func.sum(both.c.failovers))
    found = Traffic([0] * len(hours.starts), [0] * len(hours.starts), [0] * len(hours.starts))
    for hour, what, count, failed_over in await _rows(db, query.group_by(both.c.hour, both.c.what)):
        if what == "panel":
            found.panels[hour] = count
        else:
            found.route_turns[hour], found.failovers[hour] = count, int(failed_over or 0)
    return found


async def seat_counts(db: Database, hours: Hours, kinds: Sequence[str]) -> list[SeatCount]:
    """Seats per hour of their panel, status, error kind (the `kind: …` their error line opens with)
    and latency band: one query for both seat charts."""
    kind = case(
        (seats.c.status != "error", ""),
        *((seats.c.error.like(f"{name}: %"), name) for name in kinds),
        else_=OTHER_FAILURE,
    )
    band = case(*((seats.c.seconds <= bound, index) for index, bound in enumerate(BOUNDS)), else_=len(BOUNDS))
    inner = (
        select(
            hours.index_of(panels.c.at).label("hour"),
            seats.c.status.label("status"),
            kind.label("kind"),
            band.label("band"),
        )
        .select_from(panels.join(seats, seats.c.panel == panels.c.id))
        .where(*hours.within(panels.c.at))
        .subquery()
    )
    keys = (inner.c.hour, inner.c.status, inner.c.kind, inner.c.band)
    query = select(*keys, func.count()).group_by(*keys)
    return [SeatCount(*row) for row in await _rows(db, query)]


async def upstream_calls(db: Database, hours: Hours) -> list[CallCount]:
    """The usage ledger per hour, endpoint and served id: calls, failures and tokens (every purpose)."""
    await db.usage.flush()
    ledger = usage_ledger.c
    answered_untallied = and_(
        ledger.status != "error", (ledger.tokens_in.is_(None)) | ledger.tokens_out.is_(None)
    )
    inner = (
        select(
            hours.index_of(ledger.at).label("hour"),
            ledger.endpoint,
            ledger.served_id,
            case((ledger.status == "error", 1), else_=0).label("error"),
            ledger.tokens_in,
            ledger.tokens_out,
            case((answered_untallied, 1), else_=0).label("untallied"),
        )
        .where(*hours.within(ledger.at))
        .subquery()
    )
    keys = (inner.c.hour, inner.c.endpoint, inner.c.served_id)
    query = select(
        *keys,
        func.count(),
        func.sum(inner.c.error),
        func.coalesce(func.sum(inner.c.tokens_in), 0),
        func.coalesce(func.sum(inner.c.tokens_out), 0),
        func.sum(inner.c.untallied),
    ).group_by(*keys)
    return [
        CallCount(hour, endpoint, served_id, *(int(n or 0) for n in counts))
        for hour, endpoint, served_id, *counts in await _rows(db, query)
    ]


async def verdicts_recorded(db: Database, hours: Hours) -> list[VerdictCount]:
    """Verdicts written per hour, useful or not (one that superseded another counts: it was recorded)."""
    inner = select(hours.index_of(verdicts.c.at).label("hour"), verdicts.c.useful)
    inner_query = inner.where(*hours.within(verdicts.c.at)).subquery()
    query = select(inner_query.c.hour, inner_query.c.useful, func.count()).group_by(
        inner_query.c.hour, inner_query.c.useful
    )
    return [VerdictCount(hour, bool(useful), count) for hour, useful, count in await _rows(db, query)]


async def _rows(db: Database, query: Select[Any]) -> list[tuple[Any, ...]]:
    async with db.engine.connect() as connection:
        return [tuple(row) for row in (await connection.execute(query)).all()]
