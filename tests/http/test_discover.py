"""Discover over real HTTP: the fixture catalogs on loopback, listed with free/new marks and reach, and a
row added to the bench and the onboarding queue."""

from __future__ import annotations

import pytest

from tests.catalog.discover_setup import discover_models_dev, groq_bench, keyed, model, publish, rows
from tests.catalog.loopback import MODELS_DEV_PATH, OPENROUTER_PATH, CatalogServer, refresh
from tests.http.onboarding_helpers import wait_for_queue, wait_for_request
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream

FREE_OPENROUTER = "openrouter/deepseek/deepseek-chat-v3-0324:free"


@pytest.fixture
def groq(gateway: Gateway, upstream: FakeUpstream, catalogs: CatalogServer) -> Gateway:
    return groq_bench(gateway, upstream, catalogs)


def refusal(gateway: Gateway, body: dict[str, str], status: int) -> dict[str, str]:
    error: dict[str, str] = gateway.api("POST", "/api/discover/add", body, expect=status)["error"]
    return error


def test_free_models_and_paid_ones_within_reach_come_first_with_their_marks_and_reach(groq: Gateway) -> None:
    shown = rows(groq)
    assert [(f"{r['provider']}/{r['model']}", r["free"], r["reach"]) for r in shown] == [
        ("groq/llama-3.1-8b-instant", True, "connected"),
        (FREE_OPENROUTER, True, "easy to add"),
        ("freebies/tiny-chat", True, "easy to add"),
        ("groq/llama-3.3-70b-versatile", False, "on bench"),
        ("groq/qwen-qwq-32b", False, "connected"),
    ]
    by_key = keyed(shown)
    on_bench = by_key["groq/llama-3.3-70b-versatile"]
    assert (on_bench["on_bench"], on_bench["addable"], on_bench["context_window"]) == (
        ["llama"],
        False,
        131_072,
    )
    assert by_key["groq/llama-3.1-8b-instant"]["routes"] == [
        {"via": "endpoint", "endpoint": "groq", "served_id": "llama-3.1-8b-instant", "connection": None}
    ]
    assert by_key["freebies/tiny-chat"]["hint"].startswith(
        "add an endpoint for freebies at https://api.freebies.example/v1"
    )
    assert not any(r["new"] for r in shown), "the first catalogs read are the baseline"


def test_every_row_shows_paid_models_on_other_providers_and_leaves_out_deprecated_and_image_models(
    groq: Gateway,
) -> None:
    every = keyed(rows(groq, "?all=true"))
    assert every["oddball/odd-1"]["reach"] == "other"
    assert every["deepseek/deepseek-chat"]["reach"] == "easy to add"
    assert every["openai/gpt-4o"]["price"] == {"input": 2.5, "output": 10}
    assert "groq/gemma-7b-it" not in every and "openai/gpt-image-1" not in every
    shown = groq.api("GET", "/api/discover?all=true", expect=200)
    assert shown["total"] == shown["offered"] == len(every)


def test_filters_free_provider_and_search(groq: Gateway) -> None:
    assert all(r["free"] for r in rows(groq, "?free=true"))
    assert [r["model"] for r in rows(groq, "?provider=deepseek")] == ["deepseek-chat"]
    assert [r["model"] for r in rows(groq, "?q=tiny%20CHAT")] == ["tiny-chat"]
    limited = groq.api("GET", "/api/discover?limit=2", expect=200)
    assert (len(limited["rows"]), limited["total"]) == (2, 5)


def test_a_model_first_listed_after_the_baseline_is_new_and_comes_first_among_its_kind(
    groq: Gateway, catalogs: CatalogServer
) -> None:
    document = discover_models_dev()
    document["groq"]["models"]["brand-new"] = model("brand-new", "Zeta Brand New", {"input": 0, "output": 0})
    publish(catalogs, document)
    refresh(groq)
    shown = rows(groq)
    assert (shown[0]["model"], shown[0]["new"], shown[0]["first_seen"] is not None) == (
        "brand-new",
        True,
        True,
    )
    assert [r["model"] for r in rows(groq, "?new=true")] == ["brand-new"]
    refresh(groq)
    assert keyed(rows(groq))["groq/brand-new"]["new"], "a sighting keeps its first date"


def test_an_offline_gateway_lists_from_the_cached_copies_and_says_so(
    groq: Gateway, catalogs: CatalogServer
) -> None:
    catalogs.fail(MODELS_DEV_PATH)
    catalogs.fail(OPENROUTER_PATH)
    refresh(groq)
    shown = groq.api("GET", "/api/discover", expect=200)
    assert shown["offline"] is True
    assert [(c["source"], c["reading"]) for c in shown["catalogs"]] == [
        ("models.dev", "read from the cached copy"),
        ("openrouter", "read from the cached copy"),
    ]
    assert len(shown["rows"]) == 5


def test_adding_a_row_puts_the_model_on_the_bench_and_in_the_onboarding_queue(groq: Gateway) -> None:
    added = groq.api(
        "POST",
        "/api/discover/add",
        {"provider": "groq", "model": "llama-3.1-8b-instant", "suite": "quick"},
        202,
    )
    assert added["route"] == {
        "via": "endpoint",
        "endpoint": "groq",
        "served_id": "llama-3.1-8b-instant",
        "connection": None,
    }
    assert [(i["alias"], i["endpoint"], i["state"]) for i in added["items"]] == [
        ("llama-3.1-8b-instant", "groq", "queued")
    ]
    assert keyed(rows(groq))["groq/llama-3.1-8b-instant"]["queued"] is True
    queue = wait_for_queue(groq)
    assert [(i["batch"], i["served_id"], i["state"]) for i in queue["items"]] == [
        (added["batch"], "llama-3.1-8b-instant", "done")
    ]
    models = {m["alias"]: m for m in groq.api("GET", "/api/models", expect=200)["models"]}
    assert (models["llama-3.1-8b-instant"]["endpoint"], models["llama-3.1-8b-instant"]["served_id"]) == (
        "groq",
        "llama-3.1-8b-instant",
    )
    row = keyed(rows(groq))["groq/llama-3.1-8b-instant"]
    assert (row["reach"], row["on_bench"], row["addable"]) == ("on bench", ["llama-3.1-8b-instant"], False)


def test_a_hub_whose_listing_names_a_model_connects_it_when_listings_are_read(groq: Gateway) -> None:
    with FakeUpstream(["deepseek/deepseek-chat-v3-0324:free"]) as hub:
        groq.add_endpoint("hub", hub.url, kind="hub")
        assert keyed(rows(groq))[FREE_OPENROUTER]["reach"] == "easy to add", "no provider is called on a read"
        shown = groq.api("GET", "/api/discover?listings=true", expect=200)
        assert [(r["endpoint"], r["read"]) for r in shown["listings"]] == [("groq", True), ("hub", True)]
        row = keyed(shown["rows"])[FREE_OPENROUTER]
        assert (row["reach"], row["routes"]) == (
            "connected",
            [
                {
                    "via": "endpoint",
                    "endpoint": "hub",
                    "served_id": "deepseek/deepseek-chat-v3-0324:free",
                    "connection": None,
                }
            ],
        )
        added = groq.api("POST", "/api/discover/add", {"provider": "openrouter", "model": row["model"]}, 202)
        assert (added["route"]["endpoint"], added["alias"]) == ("hub", "deepseek-chat-v3-0324-free")
        groq.api("POST", "/api/onboarding/stop", expect=200)


def test_an_alias_taken_by_another_model_gets_the_providers_name(
    groq: Gateway, upstream: FakeUpstream
) -> None:
    groq.add_model("qwen-qwq-32b", "llama-3.1-8b-instant", endpoint="groq")
    added = groq.api("POST", "/api/discover/add", {"provider": "groq", "model": "qwen-qwq-32b"}, 202)
    assert added["alias"] == "qwen-qwq-32b-groq"


@pytest.mark.parametrize(
    ("body", "status", "field", "words"),
    [
        (
            {"provider": "groq", "model": "no-such-model"},
            404,
            "model",
            "no model `no-such-model` of provider",
        ),
        ({"provider": "groq", "model": "gemma-7b-it"}, 404, "model", "deprecated"),
        (
            {"provider": "groq", "model": "llama-3.3-70b-versatile"},
            409,
            "model",
            "on the bench already as `llama`",
        ),
        ({"provider": "freebies", "model": "tiny-chat"}, 409, "provider", "add an endpoint for freebies"),
        (
            {"provider": "groq", "model": "qwen-qwq-32b", "endpoint": "nowhere"},
            404,
            "endpoint",
            "no endpoint",
        ),
        ({"provider": "groq", "model": "qwen-qwq-32b", "colour": "red"}, 400, "colour", "unknown field"),
    ],
)
def test_add_refuses_with_what_to_do(
    groq: Gateway, body: dict[str, str], status: int, field: str, words: str
) -> None:
    error = refusal(groq, body, status)
    assert error["field"] == field and words in error["message"], error


def test_add_refuses_a_model_its_providers_endpoint_does_not_list(
    groq: Gateway, upstream: FakeUpstream
) -> None:
    upstream.listed(["llama-3.3-70b-versatile"])
    error = refusal(groq, {"provider": "groq", "model": "qwen-qwq-32b"}, 409)
    assert "groq does not list it" in error["message"] and error["field"] == "provider"
    assert groq.api("GET", "/api/onboarding", expect=200)["items"] == []


def test_add_refuses_a_model_already_waiting_in_the_queue(groq: Gateway, upstream: FakeUpstream) -> None:
    upstream.behave("qwen-qwq-32b", hang=True)
    body = {"provider": "groq", "model": "qwen-qwq-32b", "suite": "quick"}
    groq.api("POST", "/api/discover/add", body, expect=202)
    wait_for_request(upstream, "qwen-qwq-32b")  # probing: registered on the bench (ad hoc) and still queued
    error = refusal(groq, body, 409)
    assert "waiting in the onboarding queue" in error["message"]
    groq.api("POST", "/api/onboarding/stop", expect=200)
