"""Price watch: a free model whose price turns non-zero is held, never sent a call (panel, merge or
route), until a person allows it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.catalog.loopback import (
    OPENROUTER_PATH,
    CatalogServer,
    catalog_server,
    facts,
    openrouter,
    point_catalogs_at,
    refresh,
)
from tests.http.helpers import ask, hello
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream

FREE = "deepseek/deepseek-chat-v3-0324:free"


@pytest.fixture
def catalogs() -> Iterator[CatalogServer]:
    with catalog_server() as server:
        yield server


@pytest.fixture
def pair(gateway: Gateway, upstream: FakeUpstream, catalogs: CatalogServer) -> Gateway:
    """Endpoint `openrouter` serving `freebie` (free on OpenRouter's list) and `m2`, in collection `pair`."""
    gateway.add_endpoint("openrouter", upstream.url)
    upstream.serve(FREE, "m2")
    gateway.add_model("freebie", FREE, endpoint="openrouter")
    gateway.add_model("m2", endpoint="openrouter")
    gateway.gateway_settings(max_calls=3, max_explorers=0)
    gateway.save_collection("pair", ["freebie", "m2"])
    point_catalogs_at(gateway, catalogs)
    assert refresh(gateway)["held"] == []
    return gateway


def turn_paid(catalogs: CatalogServer) -> None:
    listed = openrouter()
    (entry,) = [model for model in listed["data"] if model["id"] == FREE]
    entry["pricing"].update(prompt="0.0000002", completion="0.0000008")
    catalogs.publish(OPENROUTER_PATH, listed)


def skipped(reply: dict) -> dict[str, str]:
    return {f"{skip['seat']}:{skip['alias']}": skip["why"] for skip in reply["bench"]["skipped"]}


def test_a_free_model_is_not_held_while_it_stays_free(pair: Gateway, upstream: FakeUpstream) -> None:
    shown = facts(pair, "freebie")
    assert shown["free"] is True and shown["facts"]["price"]["source"] == "openrouter"
    assert refresh(pair)["held"] == []
    assert ask(pair, hello("bench/pair")).status_code == 200
    assert len(upstream.requests_for(FREE)) == 1


def test_a_model_that_turned_paid_is_held_and_raises_an_alert(pair: Gateway, catalogs: CatalogServer) -> None:
    turn_paid(catalogs)
    assert refresh(pair)["held"] == ["freebie"]
    hold = facts(pair, "freebie")["paid_hold"]
    assert (hold["state"], hold["price"], hold["source"]) == (
        "held",
        {"input": 0.2, "output": 0.8},
        "openrouter",
    )
    (alert,) = pair.api("GET", "/api/alerts")["alerts"]
    assert (alert["kind"], alert["subject"]) == ("paid", "freebie")
    assert "/api/models/freebie/allow-paid" in alert["message"]
    assert refresh(pair)["held"] == [], "held once, not again"
    assert len(pair.api("GET", "/api/alerts")["alerts"]) == 1


def test_a_held_model_is_not_called_until_a_person_allows_it(
    pair: Gateway, upstream: FakeUpstream, catalogs: CatalogServer
) -> None:
    turn_paid(catalogs)
    refresh(pair)
    panel = ask(pair, hello("bench/pair")).json()
    assert skipped(panel)["member:freebie"].startswith("turned paid ($0.2 in / $0.8 out per million tokens")
    assert [seat["alias"] for seat in panel["bench"]["seats"]] == ["m2"]

    route = ask(pair, hello("bench/pair:route")).json()
    assert route["bench"]["alias"] == "m2" and "member:freebie" in skipped(route)

    pair.api("PATCH", "/api/collections/pair", {"merger": "freebie"}, expect=200)
    merged = ask(pair, hello("bench/pair:merged")).json()
    assert "merger:freebie" in skipped(merged)
    assert upstream.requests_for(FREE) == [], "no panel seat, route turn or merge reached it"

    allowed = pair.api("POST", "/api/models/freebie/allow-paid", expect=200)
    assert allowed["paid_hold"]["state"] == "allowed" and allowed["paid_hold"]["changed_by"] == "local"
    assert pair.api("GET", "/api/alerts")["alerts"] == []
    answered = ask(pair, hello("bench/pair")).json()
    assert "freebie" in [seat["alias"] for seat in answered["bench"]["seats"]]
    assert len(upstream.requests_for(FREE)) == 1
    assert refresh(pair)["held"] == [], "an allowed model is never held again"


def test_allowing_an_unknown_model_is_not_found(pair: Gateway) -> None:
    assert pair.api("POST", "/api/models/nobody/allow-paid", expect=404)["error"]["field"] == "alias"


def test_the_scheduled_probes_pass_a_held_model_over(
    pair: Gateway, upstream: FakeUpstream, catalogs: CatalogServer
) -> None:
    turn_paid(catalogs)
    refresh(pair)
    run = pair.api("POST", "/api/scheduler/jobs/daily-probe/run", expect=200)["run"]
    assert run["outcome"] == "ok" and run["detail"].startswith("probed: 1 model(s)")
    assert upstream.requests_for(FREE) == [] and len(upstream.requests_for("m2")) == 1
