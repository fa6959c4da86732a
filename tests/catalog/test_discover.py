"""Discover's rules without a gateway: the fixture catalogs merged per (provider, model), marked free and
new, given their reach, sorted and filtered, and the route and alias an added row takes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from panelgate.catalog.discover import Offer, merge_offers
from panelgate.catalog.discover_add import free_alias, route_for
from panelgate.catalog.discover_pick import Filters, picked
from panelgate.catalog.discover_reach import Row, Surroundings, by_key, rows_for
from panelgate.catalog.public_lists import models_dev_entries, openrouter_entries
from panelgate.store import EndpointRecord, ModelRecord
from panelgate.store.errors import Conflict, Invalid, NotFound
from tests.catalog.discover_setup import discover_models_dev
from tests.catalog.loopback import openrouter

NOW = datetime(2026, 12, 2, 12, 0, tzinfo=UTC)
ENTRIES = models_dev_entries(discover_models_dev()) + openrouter_entries(openrouter())


def endpoint(name: str, base_url: str = "http://127.0.0.1:9/v1") -> EndpointRecord:
    return EndpointRecord(name, base_url, "provider", "chat", None, {}, False, NOW, NOW)


def bench_model(alias: str, served_id: str, on: str, retired: bool = False) -> ModelRecord:
    return ModelRecord(
        1, alias, served_id, on, "general", False, None, None, None, None, {},
        NOW if retired else None, None, "", None, NOW,
    )  # fmt: skip


def offers(seen: dict[tuple[str, str], datetime | None] | None = None) -> list[Offer]:
    return merge_offers(ENTRIES, seen or {}).offers


def rows(
    around: Surroundings | None = None, seen: dict[tuple[str, str], datetime | None] | None = None
) -> dict[tuple[str, str], Row]:
    return by_key(rows_for(offers(seen), around or Surroundings([], [], [], {}), NOW))


def test_a_pair_both_catalogs_list_is_one_offer_and_openrouters_own_list_speaks_first() -> None:
    document = openrouter()
    document["data"].append(
        {**document["data"][0], "id": "meta-llama/llama-3.3-70b-instruct", "name": "From OR"}
    )
    merged = merge_offers(models_dev_entries(discover_models_dev()) + openrouter_entries(document), {})
    found = [o for o in merged.offers if o.key == ("openrouter", "meta-llama/llama-3.3-70b-instruct")]
    assert len(found) == 1
    assert (found[0].sources, found[0].name) == (("openrouter", "models.dev"), "From OR")


def test_deprecated_and_image_models_are_left_out_with_the_reason() -> None:
    left_out = merge_offers(ENTRIES, {}).left_out
    assert left_out[("groq", "gemma-7b-it")] == "the catalogs list it as deprecated"
    assert "does not answer in text" in left_out[("openai", "gpt-image-1")]


@pytest.mark.parametrize(
    ("key", "free"),
    [
        (("groq", "llama-3.1-8b-instant"), True),
        (("openrouter", "deepseek/deepseek-chat-v3-0324:free"), True),
        (("openrouter", "deepseek/deepseek-chat-v3-0324"), False),
        (("openrouter", "openrouter/auto"), False),
        (("openai", "gpt-4o"), False),
    ],
)
def test_free_means_priced_zero_or_a_free_variant_and_an_unknown_price_is_not_free(key, free) -> None:
    assert {o.key: o for o in offers()}[key].free is free


def test_new_means_first_seen_within_seven_days_and_the_baseline_is_never_new() -> None:
    seen = {
        ("groq", "qwen-qwq-32b"): NOW - timedelta(days=6),
        ("openai", "gpt-4o"): NOW - timedelta(days=8),
        ("groq", "llama-3.3-70b-versatile"): None,
    }
    found = rows(seen=seen)
    assert found[("groq", "qwen-qwq-32b")].new
    assert not found[("openai", "gpt-4o")].new
    assert not found[("groq", "llama-3.3-70b-versatile")].new


def test_reach_from_the_bench_endpoints_and_the_providers_api() -> None:
    around = Surroundings(
        [endpoint("groq"), endpoint("my-deepseek", "https://api.deepseek.com/v1")],
        [
            bench_model("llama", "llama-3.3-70b-versatile", "groq"),
            bench_model("old", "qwen-qwq-32b", "groq", True),
        ],
        [],
        {},
    )
    found = rows(around)
    assert found[("groq", "llama-3.3-70b-versatile")].reach == "on bench"
    assert found[("groq", "qwen-qwq-32b")].reach == "connected", "a retired model is not on the bench"
    deepseek = found[("deepseek", "deepseek-chat")]
    assert (deepseek.reach, deepseek.routes[0].endpoint) == ("connected", "my-deepseek"), "by its API host"
    assert found[("freebies", "tiny-chat")].reach == "easy to add"
    assert found[("oddball", "odd-1")].reach == "other"


def test_a_listing_adds_routes_through_any_endpoint_and_drops_a_providers_endpoint_that_lacks_it() -> None:
    around = Surroundings(
        [endpoint("groq"), endpoint("hub")],
        [],
        [("hub", "groq/qwen-qwq-32b")],
        {"groq": ["llama-3.3-70b-versatile"], "hub": ["groq/qwen-qwq-32b", "gpt-4o"]},
    )
    found = rows(around)
    qwen = found[("groq", "qwen-qwq-32b")]
    assert [(r.endpoint, r.served_id) for r in qwen.routes] == [("hub", "groq/qwen-qwq-32b")]
    assert qwen.queued, "waiting in the queue through the hub"
    instant = found[("groq", "llama-3.1-8b-instant")]
    assert (instant.reach, instant.unlisted) == ("easy to add", ("groq",))
    assert found[("openai", "gpt-4o")].reach == "connected"


def test_a_bench_model_whose_served_id_names_the_provider_is_on_the_bench_through_any_endpoint() -> None:
    around = Surroundings([endpoint("hub")], [bench_model("qwen", "groq/qwen-qwq-32b", "hub")], [], {})
    found = rows(around)
    assert (found[("groq", "qwen-qwq-32b")].reach, found[("groq", "qwen-qwq-32b")].on_bench) == (
        "on bench",
        ("qwen",),
    )
    assert found[("groq", "llama-3.3-70b-versatile")].reach == "easy to add"


def test_rows_sort_free_then_new_then_reach_then_name() -> None:
    around = Surroundings(
        [endpoint("groq")], [bench_model("llama", "llama-3.3-70b-versatile", "groq")], [], {}
    )
    seen = {("freebies", "tiny-chat"): NOW - timedelta(days=1)}
    order = [f"{r.offer.provider}/{r.offer.model}" for r in picked(rows(around, seen).values(), Filters())]
    assert order == [
        "freebies/tiny-chat",
        "groq/llama-3.1-8b-instant",
        "openrouter/deepseek/deepseek-chat-v3-0324:free",
        "groq/llama-3.3-70b-versatile",
        "groq/qwen-qwq-32b",
    ]


def test_filters_narrow_to_free_new_a_provider_or_words() -> None:
    found = rows(seen={("openai", "gpt-4o"): NOW}).values()
    assert {r.offer.provider for r in picked(found, Filters(free=True))} == {"groq", "openrouter", "freebies"}
    assert [r.offer.model for r in picked(found, Filters(new=True))] == ["gpt-4o"]
    assert [r.offer.model for r in picked(found, Filters(provider="DeepSeek"))] == ["deepseek-chat"]
    assert [r.offer.model for r in picked(found, Filters(text="gpt mini"))] == ["gpt-4o-mini"]
    assert len(picked(found, Filters(everything=True))) == len(list(found))


def add_rows() -> tuple[dict[tuple[str, str], Row], dict[tuple[str, str], str]]:
    around = Surroundings(
        [endpoint("groq"), endpoint("hub")],
        [bench_model("llama", "llama-3.3-70b-versatile", "groq")],
        [],
        {"hub": ["llama-3.1-8b-instant"]},
    )
    merged = merge_offers(ENTRIES, {})
    return by_key(rows_for(merged.offers, around, NOW)), merged.left_out


def test_add_takes_the_providers_own_endpoint_first_or_the_one_asked_for() -> None:
    found, left_out = add_rows()
    key = ("groq", "llama-3.1-8b-instant")
    assert route_for(key, found, left_out, None, ["groq", "hub"]).endpoint == "groq"
    assert route_for(key, found, left_out, "hub", ["groq", "hub"]).endpoint == "hub"


@pytest.mark.parametrize(
    ("key", "asked", "refusal", "words"),
    [
        (("groq", "nothing"), None, NotFound, "no model `nothing`"),
        (("groq", "gemma-7b-it"), None, NotFound, "deprecated"),
        (("groq", "llama-3.3-70b-versatile"), None, Conflict, "on the bench already as `llama`"),
        (
            ("freebies", "tiny-chat"),
            None,
            Conflict,
            "add an endpoint for freebies at https://api.freebies.example",
        ),
        (("groq", "qwen-qwq-32b"), "hub", Invalid, "`hub` does not serve `groq/qwen-qwq-32b`"),
        (("groq", "qwen-qwq-32b"), "elsewhere", NotFound, "no endpoint named `elsewhere`"),
    ],
)
def test_add_refuses_with_what_to_do(key, asked, refusal, words) -> None:
    found, left_out = add_rows()
    with pytest.raises(refusal) as caught:
        route_for(key, found, left_out, asked, ["groq", "hub"])
    assert words in caught.value.message


def test_an_alias_in_use_takes_the_provider_then_a_number() -> None:
    assert free_alias("tiny-chat", "freebies", set()) == "tiny-chat"
    assert free_alias("tiny-chat", "freebies", {"tiny-chat"}) == "tiny-chat-freebies"
    assert free_alias("tiny-chat", "freebies", {"tiny-chat", "tiny-chat-freebies"}) == "tiny-chat-freebies-2"
    assert free_alias("@odd name", "x", set()) == "odd-name"
