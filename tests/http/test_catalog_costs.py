"""Cost: the tokens of each call (from the stream's usage) at the catalog's prices, per call, panel,
collection and month; an unknown price makes a cost unknown (null), never zero."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.catalog.loopback import CatalogServer, catalog_server, point_catalogs_at, refresh
from tests.http.helpers import ask, hello
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream

LLAMA = "llama-3.3-70b-versatile"
"""On models.dev's `groq` provider at $0.59 in / $0.79 out per million tokens (the fixture)."""


def priced(tokens_in: int, tokens_out: int) -> float:
    return (tokens_in * 0.59 + tokens_out * 0.79) / 1_000_000


@pytest.fixture
def catalogs() -> Iterator[CatalogServer]:
    with catalog_server() as server:
        yield server


@pytest.fixture
def groq(gateway: Gateway, upstream: FakeUpstream, catalogs: CatalogServer) -> Gateway:
    """Endpoint `groq` serving `llama` (priced by the catalog) and `m1` (no catalog knows it)."""
    gateway.add_endpoint("groq", upstream.url)
    upstream.serve(LLAMA, "m1")
    gateway.add_model("llama", LLAMA, endpoint="groq")
    gateway.add_model("m1", endpoint="groq")
    gateway.gateway_settings(max_calls=3, max_explorers=0)
    gateway.save_collection("priced", ["llama"])
    gateway.save_collection("mixed", ["llama", "m1"])
    point_catalogs_at(gateway, catalogs)
    refresh(gateway)
    upstream.behave(LLAMA, usage=(1200, 300))
    upstream.behave("m1", usage=(1000, 100))
    return gateway


def panel_of(reply: dict) -> str:
    return reply["bench"]["seats"][0]["call"].split(".")[0]


def test_cost_per_panel_is_the_streamed_tokens_at_the_fixture_prices(groq: Gateway) -> None:
    panel = panel_of(ask(groq, hello("bench/priced")).json())
    cost = groq.api("GET", f"/api/usage/panels/{panel}", expect=200)
    assert (cost["panel"], cost["collection"], cost["tokens_in"], cost["tokens_out"]) == (
        panel,
        "priced",
        1200,
        300,
    )
    assert cost["cost"] == pytest.approx(priced(1200, 300))
    assert (cost["priced_calls"], cost["unpriced_calls"]) == (1, 0)
    (call,) = cost["calls"]
    assert (call["alias"], call["tokens_in"], call["tokens_out"]) == ("llama", 1200, 300)
    assert call["cost"] == pytest.approx(priced(1200, 300))


def test_a_call_without_a_price_makes_its_panels_cost_unknown(groq: Gateway) -> None:
    panel = panel_of(ask(groq, hello("bench/mixed")).json())
    cost = groq.api("GET", f"/api/usage/panels/{panel}", expect=200)
    assert cost["cost"] is None and (cost["priced_calls"], cost["unpriced_calls"]) == (1, 1)
    by_alias = {call["alias"]: call["cost"] for call in cost["calls"]}
    assert by_alias["m1"] is None and by_alias["llama"] == pytest.approx(priced(1200, 300))

    groq.api("PUT", "/api/models/m1/facts", {"price": {"input": 1, "output": 2}}, expect=200)
    cost = groq.api("GET", f"/api/usage/panels/{panel}", expect=200)
    assert cost["cost"] == pytest.approx(priced(1200, 300) + (1000 * 1 + 100 * 2) / 1_000_000)


def test_usage_shows_costs_per_model_collection_and_month(groq: Gateway) -> None:
    ask(groq, hello("bench/priced"))
    ask(groq, hello("bench/mixed"))
    usage = groq.api("GET", "/api/usage", expect=200)
    month = {total["alias"]: total for total in usage["month"]}
    assert month["llama"]["cost"] == pytest.approx(2 * priced(1200, 300)) and month["m1"]["cost"] is None
    collections = {c["collection"]: c for c in usage["costs"]["collections"]}
    assert collections["priced"]["cost"] == pytest.approx(priced(1200, 300))
    mixed = collections["mixed"]
    assert (mixed["cost"], mixed["unpriced_calls"], mixed["calls"]) == (None, 1, 2)
    assert usage["costs"]["month"] == {"cost": None, "priced_calls": 2, "unpriced_calls": 1}
    assert {row["alias"]: row["cost"] is None for row in usage["recent"]} == {"llama": False, "m1": True}

    groq.api("PUT", "/api/models/m1/facts", {"price": {"input": 0, "output": 0}}, expect=200)
    month = groq.api("GET", "/api/usage", expect=200)["costs"]["month"]
    assert month["cost"] == pytest.approx(2 * priced(1200, 300)) and month["unpriced_calls"] == 0


def test_a_past_month_without_calls_costs_nothing(groq: Gateway) -> None:
    ask(groq, hello("bench/priced"))
    usage = groq.api("GET", "/api/usage?month=2001-02", expect=200)
    assert usage["month"] == [] and usage["costs"]["month_of"] == "2001-02"
    assert usage["costs"]["month"] == {"cost": 0.0, "priced_calls": 0, "unpriced_calls": 0}


@pytest.mark.parametrize("month", ["2026-13", "2026-1", "last", "0000-01"])
def test_a_month_that_is_not_yyyy_mm_is_refused(groq: Gateway, month: str) -> None:
    assert groq.api("GET", f"/api/usage?month={month}", expect=400)["error"]["field"] == "month"


def test_the_cost_of_an_unknown_panel_is_not_found(groq: Gateway) -> None:
    assert (
        groq.api("GET", "/api/usage/panels/p20010101-000000-abcd", expect=404)["error"]["field"] == "panel_id"
    )
