"""What calls cost, from the tokens the ledger counted and the catalog's prices.

A call costs its input tokens times the input price plus its output tokens
(reasoning included, as providers count them) times the output price, per
million. Costs are counted at each model's price now, not the price on the
day of the call. A price nobody states, or an answered call whose tokens the
upstream did not report, makes the cost *unknown* (None), never zero: a
total that silently left it out would look cheaper than it was. A failed
call that reported no tokens costs nothing, and a free model costs nothing
whatever it used.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from panelgate.catalog.facts import Price
from panelgate.store.usage_book import Spend, UsageEntry

Where = tuple[str, str]
"""(endpoint, served id)."""
Prices = Mapping[Where, Price | None]


@dataclass(frozen=True)
class CostTotal:
    """A sum of costs: None when any part is unknown, with how many calls were priced and not."""

    cost: float | None
    priced_calls: int
    unpriced_calls: int


def call_cost(entry: UsageEntry, prices: Prices) -> float | None:
    price = prices.get((entry.endpoint, entry.served_id))
    if entry.status == "error" and entry.tokens_in is None and entry.tokens_out is None:
        return 0.0
    if price is None:
        return None
    if price.free:
        return 0.0
    if entry.tokens_in is None or entry.tokens_out is None:
        return None
    return price.cost(entry.tokens_in, entry.tokens_out)


def spend_cost(spend: Spend, prices: Prices) -> float | None:
    price = prices.get((spend.endpoint, spend.served_id))
    if price is None:
        return None
    if price.free:
        return 0.0
    if spend.untallied:
        return None
    return price.cost(spend.tokens_in, spend.tokens_out)


def total(costs: Iterable[tuple[float | None, int]]) -> CostTotal:
    """The sum of (cost, calls) pairs; unknown as soon as one cost is."""
    known, priced, unpriced = 0.0, 0, 0
    for cost, calls in costs:
        if cost is None:
            unpriced += calls
        else:
            known += cost
            priced += calls
    return CostTotal(None if unpriced else round(known, 9), priced, unpriced)
