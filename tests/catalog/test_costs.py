"""Cost from tokens and prices; unknown is unknown, never zero."""

from __future__ import annotations

from datetime import UTC, datetime

from panelgate.catalog.costs import call_cost, spend_cost, total
from panelgate.catalog.facts import Price
from panelgate.store.usage_book import Spend, UsageEntry

PRICES = {("groq", "llama"): Price(0.59, 0.79), ("or", "free"): Price(0, 0), ("up", "m1"): None}


def entry(
    endpoint: str, served: str, status: str = "ok", tokens: tuple[int | None, int | None] = (1000, 200)
) -> UsageEntry:
    return UsageEntry(
        at=datetime(2026, 12, 1, tzinfo=UTC), endpoint=endpoint, served_id=served, alias=served, caller="t",
        purpose="panel", call=None, status=status, error_kind=None, attempts=1, tokens_in=tokens[0],
        tokens_out=tokens[1], tokens_reasoning=None, seconds=1.0,
    )  # fmt: skip


def test_a_call_costs_its_tokens_at_the_price_per_million() -> None:
    assert call_cost(entry("groq", "llama"), PRICES) == (1000 * 0.59 + 200 * 0.79) / 1_000_000


def test_an_unknown_price_or_unreported_tokens_make_the_cost_unknown() -> None:
    assert call_cost(entry("up", "m1"), PRICES) is None
    assert call_cost(entry("nowhere", "x"), PRICES) is None
    assert call_cost(entry("groq", "llama", tokens=(None, None)), PRICES) is None


def test_a_free_model_and_a_failed_call_without_tokens_cost_nothing() -> None:
    assert call_cost(entry("or", "free", tokens=(None, None)), PRICES) == 0.0
    assert call_cost(entry("up", "m1", status="error", tokens=(None, None)), PRICES) == 0.0


def test_a_total_is_unknown_as_soon_as_one_part_is() -> None:
    known = total([(0.5, 2), (0.25, 1)])
    assert (known.cost, known.priced_calls, known.unpriced_calls) == (0.75, 3, 0)
    unknown = total([(0.5, 2), (None, 1)])
    assert (unknown.cost, unknown.priced_calls, unknown.unpriced_calls) == (None, 2, 1)


def test_spend_with_calls_whose_tokens_were_not_reported_has_no_cost() -> None:
    spend = Spend("groq", "llama", "llama", None, calls=3, tokens_in=3000, tokens_out=600, untallied=0)
    assert spend_cost(spend, PRICES) == (3000 * 0.59 + 600 * 0.79) / 1_000_000
    assert spend_cost(Spend("groq", "llama", "llama", None, 3, 3000, 600, untallied=1), PRICES) is None
