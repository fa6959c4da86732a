"""`GET /api/usage`: the usage ledger summed per connection and model, its newest rows, and what it cost.

What was sent in the last 24 hours and in a calendar month (UTC; this one
unless `month=YYYY-MM` names another), per model on each connection:
calls, requests (retries included), failures and tokens, each with its
cost at the catalog's prices; the month's cost per collection; and
`GET /api/usage/panels/{panel_id}`: what one panel's seats (its merger
included) cost. A cost is null when a price or a token count it needs is
unknown: never a zero that was not measured. The Quotas page and
`panelgate usage` read this.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field
from starlette.responses import Response

from panelgate.catalog.costs import Prices, call_cost, spend_cost, total
from panelgate.core.errors import BadRequest, NotFound
from panelgate.http.admin.shapes import plain
from panelgate.http.responses import json_response
from panelgate.http.services import services
from panelgate.store.usage_book import Spend, UsageEntry, UsageTotal

router = APIRouter()
MONTH = re.compile(r"^(\d{4})-(\d{2})$")


class Total(BaseModel):
    endpoint: str
    alias: str
    calls: int
    attempts: int = Field(description="requests sent, retries included")
    failed: int
    tokens_in: int
    tokens_out: int
    cost: float | None = Field(
        description="US dollars at the catalog's prices; null: a price or token count is unknown"
    )


class Entry(BaseModel):
    at: datetime
    endpoint: str
    served_id: str
    alias: str
    caller: str
    purpose: str = Field(description="panel, merge, route, shadow, probe, suite, onboard or shape")
    call: str | None
    status: str
    error_kind: str | None
    attempts: int
    tokens_in: int | None
    tokens_out: int | None
    tokens_reasoning: int | None
    seconds: float
    cost: float | None = Field(description="US dollars at the catalog's prices; null: unknown")


class CostTotal(BaseModel):
    cost: float | None = Field(description="US dollars; null when any call's cost is unknown")
    priced_calls: int
    unpriced_calls: int = Field(description="calls whose price or token counts are unknown")


class CollectionCost(BaseModel):
    collection: str
    calls: int
    tokens_in: int
    tokens_out: int
    cost: float | None
    unpriced_calls: int


class Costs(BaseModel):
    month_of: str = Field(description="the month `month` covers, YYYY-MM (UTC)")
    day: CostTotal = Field(description="the last 24 hours")
    month: CostTotal
    collections: list[CollectionCost] = Field(description="the month's panels and route turns per collection")


class Usage(BaseModel):
    day: list[Total] = Field(description="the last 24 hours")
    month: list[Total] = Field(description="a calendar month, UTC: this one unless `month` names another")
    recent: list[Entry] = Field(description="the newest calls first")
    costs: Costs


class PanelCost(BaseModel):
    panel: str
    collection: str
    calls: list[Entry] = Field(description="one row per upstream call of its seats and merger")
    tokens_in: int
    tokens_out: int
    cost: float | None = Field(description="US dollars; null when any call's cost is unknown")
    priced_calls: int
    unpriced_calls: int


@router.get("/usage", response_model=Usage)
async def usage(request: Request, limit: int = 100, month: str | None = None) -> Response:
    book = services(request).db.usage
    now = datetime.now(UTC)
    start, end = _month(month, now)
    prices = await services(request).catalog.prices()
    day_spend = await book.spend(now - timedelta(days=1))
    month_spend = await book.spend(start, end, by_collection=True)
    return json_response(
        {
            "day": _totals(await book.totals(now - timedelta(days=1)), day_spend, prices),
            "month": _totals(await book.totals(start, end), month_spend, prices),
            "recent": [_entry(e, prices) for e in await book.recent(max(1, min(limit, 1000)))],
            "costs": {
                "month_of": f"{start:%Y-%m}",
                "day": plain(total((spend_cost(s, prices), s.calls) for s in day_spend)),
                "month": plain(total((spend_cost(s, prices), s.calls) for s in month_spend)),
                "collections": _collections(month_spend, prices),
            },
        }
    )


@router.get("/usage/panels/{panel_id}", response_model=PanelCost)
async def panel_cost(request: Request, panel_id: str) -> Response:
    db = services(request).db
    found = await db.panels.get(panel_id)
    if found is None:
        raise NotFound(f"no panel `{panel_id[:80]}` on record", param="panel_id")
    panel, _ = found
    entries = await db.usage.for_panel(panel.id)
    prices = await services(request).catalog.prices()
    costs = total((call_cost(e, prices), 1) for e in entries)
    return json_response(
        {
            "panel": panel.id,
            "collection": panel.collection,
            "calls": [_entry(e, prices) for e in entries],
            "tokens_in": sum(e.tokens_in or 0 for e in entries),
            "tokens_out": sum(e.tokens_out or 0 for e in entries),
            **plain(costs),
        }
    )


def _month(named: str | None, now: datetime) -> tuple[datetime, datetime | None]:
    """The first moment of the month `named` (YYYY-MM; None: this one) and of the next (None: now on)."""
    if named is None:
        return now.replace(day=1, hour=0, minute=0, second=0, microsecond=0), None
    match = MONTH.fullmatch(named.strip())
    if match is None or not 1 <= int(match.group(2)) <= 12 or not 1 <= int(match.group(1)) <= 9998:
        raise BadRequest("`month` is a calendar month written YYYY-MM, such as 2026-11", param="month")
    year, number = int(match.group(1)), int(match.group(2))
    start = datetime(year, number, 1, tzinfo=UTC)
    following = (
        datetime(year + 1, 1, 1, tzinfo=UTC) if number == 12 else datetime(year, number + 1, 1, tzinfo=UTC)
    )
    return start, following


def _totals(totals: Sequence[UsageTotal], spend: Sequence[Spend], prices: Prices) -> list[dict[str, Any]]:
    """Each (connection, alias) total with the cost of what it spent (summed over served ids and
    collections)."""
    parts: dict[tuple[str, str], list[tuple[float | None, int]]] = {}
    for s in spend:
        parts.setdefault((s.endpoint, s.alias), []).append((spend_cost(s, prices), s.calls))
    return [{**plain(t), "cost": total(parts.get((t.endpoint, t.alias), [])).cost} for t in totals]


def _collections(spend: Sequence[Spend], prices: Prices) -> list[dict[str, Any]]:
    grouped: dict[str, list[Spend]] = {}
    for s in spend:
        if s.collection is not None:
            grouped.setdefault(s.collection, []).append(s)
    shown = []
    for name, parts in sorted(grouped.items()):
        costs = total((spend_cost(s, prices), s.calls) for s in parts)
        shown.append(
            {
                "collection": name,
                "calls": sum(s.calls for s in parts),
                "tokens_in": sum(s.tokens_in for s in parts),
                "tokens_out": sum(s.tokens_out for s in parts),
                "cost": costs.cost,
                "unpriced_calls": costs.unpriced_calls,
            }
        )
    return shown


def _entry(entry: UsageEntry, prices: Prices) -> dict[str, Any]:
    return {**plain(entry), "cost": call_cost(entry, prices)}
