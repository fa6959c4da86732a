"""The facts API: each fact with its value, its source and every source's word; overrides win and clear."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.catalog.loopback import (
    CatalogServer,
    ListingUpstream,
    facts,
    point_catalogs_at,
    refresh,
)
from tests.http.helpers import ask
from tests.support.gateway import Gateway


@pytest.fixture
def listing() -> Iterator[ListingUpstream]:
    with ListingUpstream(("gpt-4o", "m1")) as server:
        yield server


@pytest.fixture
def openai_bench(gateway: Gateway, listing: ListingUpstream, catalogs: CatalogServer) -> Gateway:
    """Endpoint `openai` (its listing states gpt-4o's window) with `gpt` = gpt-4o, catalogs refreshed."""
    listing.details["gpt-4o"] = {
        "context_length": 64_000,
        "pricing": {"prompt": "0.000002", "completion": "0.000008"},
    }
    gateway.add_endpoint("openai", listing.url)
    gateway.add_model("gpt", "gpt-4o", endpoint="openai")
    gateway.add_model("m1", endpoint="openai")
    point_catalogs_at(gateway, catalogs)
    refresh(gateway)
    return gateway


def sources(fact: dict) -> list[tuple[str, object]]:
    return [(word["source"], word["value"]) for word in fact["known"]]


def test_each_fact_shows_its_value_source_and_every_sources_word(openai_bench: Gateway) -> None:
    shown = facts(openai_bench, "gpt")
    window = shown["facts"]["context_window"]
    assert (window["value"], window["source"], window["overridden"]) == (64_000, "listing", None)
    assert sources(window) == [("listing", 64_000), ("models.dev", 128_000), ("openrouter", 128_000)]
    evidence = {word["source"]: word["evidence"] for word in window["known"]}
    assert evidence["models.dev"] == "openai/gpt-4o" and evidence["openrouter"] == "openai/gpt-4o"
    assert "openai" in evidence["listing"]
    vision = shown["facts"]["vision"]
    assert (vision["value"], vision["source"]) == (True, "models.dev")
    price = shown["facts"]["price"]
    assert (price["value"], price["source"]) == ({"input": 2.0, "output": 8.0}, "listing")
    assert sources(price) == [
        ("listing", {"input": 2.0, "output": 8.0}),
        ("models.dev", {"input": 2.5, "output": 10.0}),
    ]
    assert shown["free"] is False and shown["paid_hold"] is None
    assert shown["matched"] == {"models.dev": "openai/gpt-4o", "openrouter": "openai/gpt-4o"}
    names = [f["name"] for f in openai_bench.api("GET", "/api/models/gpt/facts")["facts"]]
    assert names == [
        "context_window",
        "max_output",
        "vision",
        "tools",
        "structured_output",
        "reasoning",
        "price",
        "limits",
    ]


def test_a_model_no_catalog_knows_has_every_fact_unknown(openai_bench: Gateway) -> None:
    shown = facts(openai_bench, "m1")
    assert all(fact["value"] is None and fact["known"] == [] for fact in shown["facts"].values())
    assert shown["free"] is None and shown["matched"] == {}


def test_overrides_win_over_every_source_and_show_what_they_replaced(openai_bench: Gateway) -> None:
    body = {
        "context_window": 50_000,
        "reasoning": True,
        "price": {"input": 0, "output": 0},
        "limits": {"rpm": 30},
    }
    shown = openai_bench.api("PUT", "/api/models/gpt/facts", body, expect=200)
    by_name = {fact["name"]: fact for fact in shown["facts"]}
    window = by_name["context_window"]
    assert (window["value"], window["source"]) == (50_000, "override")
    assert (window["overridden"]["source"], window["overridden"]["value"]) == ("listing", 64_000)
    assert (by_name["reasoning"]["value"], by_name["reasoning"]["overridden"]["value"]) == (True, False)
    assert by_name["price"]["value"] == {"input": 0, "output": 0} and shown["free"] is True
    assert by_name["limits"]["value"] == {"rpm": 30} and by_name["limits"]["overridden"] is None
    assert openai_bench.api("GET", "/api/models/gpt")["model"]["context_window"] == 50_000, (
        "the model's own column"
    )
    change = openai_bench.api("GET", "/api/audit?entity=model")["changes"][0]
    assert (change["action"], change["after"]["context_window"], change["before"]["context_window"]) == (
        "facts", 50_000, None
    )  # fmt: skip


def test_clearing_an_override_gives_the_sources_word_back(openai_bench: Gateway) -> None:
    openai_bench.api(
        "PUT", "/api/models/gpt/facts", {"context_window": 50_000, "reasoning": True}, expect=200
    )
    openai_bench.api("PUT", "/api/models/gpt/facts", {"context_window": None, "reasoning": None}, expect=200)
    shown = facts(openai_bench, "gpt")["facts"]
    assert (shown["context_window"]["value"], shown["context_window"]["source"]) == (64_000, "listing")
    assert (shown["reasoning"]["value"], shown["reasoning"]["source"]) == (False, "models.dev")


def test_an_overridden_window_decides_seating(openai_bench: Gateway, listing: ListingUpstream) -> None:
    openai_bench.save_collection("solo", ["gpt"])
    openai_bench.gateway_settings(max_calls=1, max_explorers=0)
    openai_bench.api("PUT", "/api/models/gpt/facts", {"context_window": 1000}, expect=200)
    body = {"model": "bench/solo", "messages": [{"role": "user", "content": "word " * 2000}]}
    refused = ask(openai_bench, body)
    assert refused.status_code == 413 and "`gpt` (1,000)" in refused.json()["error"]["message"]
    assert listing.requests_for("gpt-4o") == []


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"speed": 3}, "speed"),
        ({"context_window": 0}, "context_window"),
        ({"vision": "yes"}, "vision"),
        ({"price": {"input": -1, "output": 0}}, "price.input"),
        ({"price": {"input": 1}}, "price"),
        ({"price": {"input": 1, "output": 1, "cached": 1}}, "price"),
        ({"limits": {}}, "limits"),
        ({"limits": {"rpm": 0}}, "limits.rpm"),
    ],
)
def test_a_bad_override_is_refused_naming_its_field(openai_bench: Gateway, body: dict, field: str) -> None:
    refused = openai_bench.api("PUT", "/api/models/gpt/facts", body, expect=400)
    assert refused["error"]["field"] == field
    assert facts(openai_bench, "gpt")["facts"]["context_window"]["source"] == "listing", "nothing was changed"


def test_facts_of_an_unknown_model_are_not_found(openai_bench: Gateway) -> None:
    assert openai_bench.api("GET", "/api/models/nobody/facts", expect=404)["error"]["field"] == "alias"
    assert openai_bench.api("PUT", "/api/models/nobody/facts", {"reasoning": True}, expect=404)["error"]
