"""What the Activity page and `GET /api/activity` show: the gateway's figures hour by hour over the last day.

`/metrics` has the same figures since each process started; this reads them
from the store's records (`store/activity.py`, one grouped query per
reading), so a restart loses nothing and every replica shows the same day.
Each chart is a few named series of 24 hourly values: panels and route
turns, seat time (median and 95th percentile, placed within latency bands),
seats by outcome, upstream errors, tokens and cost per endpoint (the few
biggest by name, the rest as "other"), verdicts recorded, route failovers.
Costs are at the catalog's prices now, as `/api/usage` counts them; a call
whose price or tokens are unknown is left out of the sum and counted in
the chart's note, never priced at zero.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime

from panelgate.catalog.costs import Prices, spend_cost
from panelgate.core.latency_bands import BOUNDS, percentile
from panelgate.http.services import Services
from panelgate.store.activity import (
    CallCount,
    SeatCount,
    Traffic,
    seat_counts,
    traffic,
    upstream_calls,
    verdicts_recorded,
)
from panelgate.store.activity_hours import Hours
from panelgate.store.usage_book import Spend
from panelgate.upstream import KINDS

NAMED_ENDPOINTS = 4
"""Endpoints drawn by name in a per-endpoint chart; the rest are summed as "other"."""
NOT_STORED = (
    "Pacing's waits and refusals are not kept in the store (a refused call was never sent, so the "
    "usage ledger has no row for it): /metrics counts them since each gateway process started."
)


@dataclass(frozen=True)
class Series:
    name: str
    values: list[float | None]
    """One per hour, oldest first; None where there is nothing to measure (a percentile of no seats)."""


@dataclass(frozen=True)
class Chart:
    slug: str
    title: str
    unit: str
    """What a value counts, in plain words: `panels`, `seconds`, `tokens`, `US dollars`…"""
    series: list[Series]
    stacked: bool = True
    """Counts stack as bars; times (medians, percentiles) are lines that must not add up."""
    note: str = ""
    nothing: str = "nothing in the last 24 hours"
    """What the chart says over an empty plot."""


@dataclass(frozen=True)
class Activity:
    hours: list[datetime]
    """Each hour's start (UTC), oldest first; the last is the hour now is in."""
    charts: list[Chart] = field(default_factory=list)
    not_stored: str = NOT_STORED


async def read_activity(services: Services, now: datetime) -> Activity:
    """Every chart of the day up to `now`."""
    db, hours = services.db, Hours.ending(now)
    moved = await traffic(db, hours)
    calls = await upstream_calls(db, hours)
    seated = await seat_counts(db, hours, KINDS)
    prices = await services.catalog.prices()
    count = len(hours.starts)
    charts = [
        _traffic_chart(moved),
        _latency_chart(seated, count),
        _outcome_chart(seated, count),
        _per_endpoint(
            "upstream-errors", "Upstream errors per endpoint", "failed calls", calls, _errors, count
        ),
        _per_endpoint("tokens", "Tokens per endpoint", "tokens", calls, _tokens, count),
        _cost_chart(calls, prices, count),
        _verdict_chart([(v.hour, v.useful, v.verdicts) for v in await verdicts_recorded(db, hours)], count),
        Chart("failovers", "Route failovers", "failovers", [Series("failovers", list(moved.failovers))]),
    ]
    return Activity(list(hours.starts), charts)


def _errors(count: CallCount) -> float:
    return count.errors


def _tokens(count: CallCount) -> float:
    return count.tokens_in + count.tokens_out


def _traffic_chart(moved: Traffic) -> Chart:
    series = [Series("panels", list(moved.panels)), Series("route turns", list(moved.route_turns))]
    return Chart("traffic", "Panels and route turns", "requests", series)


def _latency_chart(counts: Iterable[SeatCount], hours: int) -> Chart:
    bands = [[0] * (len(BOUNDS) + 1) for _ in range(hours)]
    for count in counts:
        bands[count.hour][count.band] += count.seats
    median = [_rounded(percentile(hour, 0.5)) for hour in bands]
    slow = [_rounded(percentile(hour, 0.95)) for hour in bands]
    series = [Series("median", median), Series("95th percentile", slow)]
    note = "Estimated from latency bands, as Prometheus does: close, not exact."
    return Chart("seat-time", "Seat time", "seconds", series, stacked=False, note=note)


def _outcome_chart(counts: Iterable[SeatCount], hours: int) -> Chart:
    by_outcome: dict[str, list[float | None]] = {}
    for count in counts:
        name = count.status if count.status != "error" else f"error: {count.kind}"
        hourly = by_outcome.setdefault(name, [0] * hours)
        hourly[count.hour] = (hourly[count.hour] or 0) + count.seats
    order = {"ok": 0, "empty": 1}
    named = sorted(by_outcome, key=lambda name: (order.get(name, 2), name))
    return Chart("seats", "Seats by outcome", "seats", [Series(name, by_outcome[name]) for name in named])


def _per_endpoint(
    slug: str,
    title: str,
    unit: str,
    calls: Iterable[CallCount],
    measure: Callable[[CallCount], float],
    hours: int,
) -> Chart:
    values: dict[str, dict[int, float]] = defaultdict(lambda: defaultdict(float))
    for count in calls:
        values[count.endpoint][count.hour] += measure(count)
    return Chart(slug, title, unit, top_by_day(values, hours))


def _cost_chart(calls: Iterable[CallCount], prices: Prices, hours: int) -> Chart:
    values: dict[str, dict[int, float]] = defaultdict(lambda: defaultdict(float))
    unpriced = 0
    for count in calls:
        cost = _cost(count, prices)
        if cost is None:
            unpriced += count.calls
        else:
            values[count.endpoint][count.hour] += cost
    note = (
        f"{unpriced} call{'' if unpriced == 1 else 's'} left out: the catalog has no price for the model, "
        "or the upstream did not report its tokens."
        if unpriced
        else "At the catalog's prices now."
    )
    known = any(cost for endpoint in values.values() for cost in endpoint.values())
    nothing = "no known cost in the last 24 hours" if unpriced and not known else Chart.nothing
    return Chart(
        "cost", "Cost per endpoint", "US dollars", top_by_day(values, hours), note=note, nothing=nothing
    )


def _cost(count: CallCount, prices: Prices) -> float | None:
    """What the hour's calls to one served id cost, as `/api/usage` prices them (None: unknown); calls
    that all failed reporting no tokens cost nothing, priced or not (`catalog/costs.py`'s rule)."""
    if count.errors == count.calls and count.tokens_in == count.tokens_out == 0:
        return 0.0
    spent = Spend(
        count.endpoint,
        count.served_id,
        "",
        None,
        count.calls,
        count.tokens_in,
        count.tokens_out,
        count.untallied,
    )
    return spend_cost(spent, prices)


def _verdict_chart(counts: Iterable[tuple[int, bool, int]], hours: int) -> Chart:
    useful: list[float | None] = [0] * hours
    not_useful: list[float | None] = [0] * hours
    for hour, was_useful, number in counts:
        (useful if was_useful else not_useful)[hour] = number
    return Chart(
        "verdicts",
        "Verdicts recorded",
        "verdicts",
        [Series("useful", useful), Series("not useful", not_useful)],
    )


def top_by_day(values: Mapping[str, Mapping[int, float]], hours: int) -> list[Series]:
    """The biggest endpoints over the day by name (ties by name), the rest summed as "other"."""
    ranked = sorted(values, key=lambda name: (-sum(values[name].values()), name))
    named, rest = ranked[:NAMED_ENDPOINTS], ranked[NAMED_ENDPOINTS:]
    if len(rest) == 1:
        named, rest = ranked, []
    series = [
        Series(name, [_rounded(values[name].get(hour, 0.0)) for hour in range(hours)]) for name in named
    ]
    if rest:
        other = [_rounded(sum(values[name].get(hour, 0.0) for name in rest)) for hour in range(hours)]
        series.append(Series("other", other))
    return series


def _rounded(value: float | None) -> float | None:
    """Twelve significant digits: whole counts stay whole, and a sum's float noise stays out of the JSON."""
    return None if value is None else float(f"{value:.12g}")
