"""Discover reaches a provider through a hub: a LiteLLM connection to the provider's API server is a
route, and adding the row has the hub serve the model, then queues it from the hub."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.catalog.discover_setup import groq_bench, keyed, rows
from tests.catalog.loopback import CatalogServer
from tests.support.gateway import Gateway
from tests.support.litellm_hub import LiteLLMHub
from tests.support.upstream import FakeUpstream

MASTER = "sk-master-3d3d3d3d3d"
FREEBIES = [
    {
        "model_name": "huge-chat",
        "litellm_params": {"model": "openai/huge-chat", "api_base": "https://api.freebies.example/v1"},
        "model_info": {"id": "d1", "db_model": True},
    }
]


@pytest.fixture
def hub() -> Iterator[LiteLLMHub]:
    with LiteLLMHub(MASTER, FREEBIES) as server:
        yield server


@pytest.fixture
def bench(gateway: Gateway, upstream: FakeUpstream, catalogs: CatalogServer, hub: LiteLLMHub) -> Gateway:
    groq_bench(gateway, upstream, catalogs)
    gateway.add_endpoint("proxy", f"{hub.url}/v1", key=MASTER, hub="litellm", admin_key=MASTER)
    return gateway


def test_a_hub_connection_to_the_provider_is_a_route_once_listings_are_read(bench: Gateway):
    assert keyed(rows(bench))["freebies/tiny-chat"]["reach"] == "easy to add", (
        "hubs are asked only on request"
    )
    row = keyed(rows(bench, "?listings=true"))["freebies/tiny-chat"]
    assert (row["reach"], row["addable"], row["hint"]) == ("connected", True, "")
    assert row["routes"] == [
        {"via": "hub", "endpoint": "proxy", "served_id": "tiny-chat", "connection": "api.freebies.example"}
    ]


def test_adding_through_the_hub_has_it_serve_the_model_then_queues_it(bench: Gateway, hub: LiteLLMHub):
    added = bench.api(
        "POST",
        "/api/discover/add",
        {"provider": "freebies", "model": "tiny-chat", "suite": "quick"},
        expect=202,
    )
    (new,) = hub.calls_to("POST", "/model/new")
    assert new.body["model_name"] == "tiny-chat"
    assert new.body["litellm_params"]["api_base"] == "https://api.freebies.example/v1"
    assert "api_key" not in new.body["litellm_params"]
    assert added["route"] == {
        "via": "hub",
        "endpoint": "proxy",
        "served_id": "tiny-chat",
        "connection": "api.freebies.example",
    }
    assert added["hub"]["sent"] == [{"method": "POST", "path": "/model/new", "body": new.body}]
    (queued,) = bench.api("GET", f"/api/onboarding?batch={added['batch']}", expect=200)["items"]
    assert (queued["endpoint"], queued["served_id"], queued["alias"]) == (
        "proxy",
        "tiny-chat",
        added["alias"],
    )
    again = bench.api("POST", "/api/discover/add", {"provider": "freebies", "model": "tiny-chat"}, expect=409)
    assert "onboarding queue already" in again["error"]["message"]
    assert len(hub.calls_to("POST", "/model/new")) == 1
