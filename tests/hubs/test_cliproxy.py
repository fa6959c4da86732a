"""Adding a model through CLI Proxy API's management API (a loopback stand-in: it is a Go program, not
on PyPI), which bans an address after five refused management keys."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.hubs.helpers import gateway_shows_no, on_bench, secrets_in_bodies
from tests.support.cliproxy_hub import PROVIDERS, CliProxyHub
from tests.support.gateway import Gateway
from tests.support.json_hub import HubCall

MANAGEMENT = "mgmt-secret-8888"
CLIENT = "sk-cpa-client-7777"
ROUTER_KEY = "sk-or-v1-6666"
PROVIDER_LIST = [
    {
        "name": "openrouter",
        "prefix": "or",
        "base-url": "https://openrouter.ai/api/v1",
        "api-key-entries": [{"api-key": ROUTER_KEY}],
        "models": [{"name": "moonshotai/kimi-k2:free", "alias": "kimi-k2", "display-name": "Kimi"}],
    },
    {
        "name": "groq",
        "base-url": "https://api.groq.com/openai/v1",
        "api-key-entries": [{"api-key": "gsk_5555"}],
        "models": [{"name": "llama-fast", "alias": "llama-fast"}],
    },
]


@pytest.fixture
def hub() -> Iterator[CliProxyHub]:
    with CliProxyHub(MANAGEMENT, PROVIDER_LIST, client_key=CLIENT) as server:
        yield server


def _endpoint(gateway: Gateway, hub: CliProxyHub, admin_key: str | None = MANAGEMENT) -> None:
    extra = {} if admin_key is None else {"admin_key": admin_key}
    gateway.add_endpoint("cpa", f"{hub.url}/v1", key=CLIENT, hub="cliproxy", **extra)


def _management_calls(hub: CliProxyHub) -> list[HubCall]:
    return [c for c in hub.calls if c.path.startswith("/v0/management/")]


ASK = {"model": "qwen/qwen3-coder:free", "connection": "openrouter"}


def test_an_add_merges_one_providers_models_and_onboards_the_prefixed_id(gateway: Gateway, hub: CliProxyHub):
    _endpoint(gateway, hub)
    plan = gateway.api("POST", "/api/hubs/cpa/plan", ASK, expect=200)["plan"]
    assert plan["served_id"] == "or/qwen/qwen3-coder:free" and plan["version"] == "7.2.140"
    assert hub.writes() == []
    reads_before = len(hub.calls_to("GET", PROVIDERS))
    gateway.api("POST", "/api/hubs/cpa/add", {**ASK, "alias": "qwen-coder"}, expect=200)
    (patch,) = hub.calls_to("PATCH", PROVIDERS)
    assert patch.body == {
        "name": "openrouter",
        "value": {"models": [*PROVIDER_LIST[0]["models"], {"name": ASK["model"], "alias": ASK["model"]}]},
    }
    assert all(c.headers.get("x-management-key") == MANAGEMENT for c in _management_calls(hub))
    assert all("authorization" not in c.headers for c in _management_calls(hub))
    assert secrets_in_bodies(hub.calls, [ROUTER_KEY, "gsk_5555", MANAGEMENT, CLIENT]) == []
    reads = len(hub.calls_to("GET", PROVIDERS)) - reads_before
    assert reads == 2, "the add reads for its plan, then again just before writing"
    assert on_bench(gateway, "qwen-coder")["served_id"] == "or/qwen/qwen3-coder:free"
    gateway_shows_no(gateway, MANAGEMENT, CLIENT)


def test_without_a_management_key_nothing_is_sent(gateway: Gateway, hub: CliProxyHub):
    _endpoint(gateway, hub, admin_key=None)
    refused = gateway.api("POST", "/api/hubs/cpa/add", ASK, expect=502)
    assert refused["error"]["field"] == "admin_key"
    assert _management_calls(hub) == []


def test_a_refused_management_key_is_sent_once_and_never_again(gateway: Gateway, hub: CliProxyHub):
    _endpoint(gateway, hub, admin_key="wrong-key")
    first = gateway.api("POST", "/api/hubs/cpa/add", ASK, expect=502)
    assert "refused the admin key `cpa-admin`" in first["error"]["message"]
    assert "wrong-key" not in str(first)
    for _ in range(6):
        again = gateway.api("POST", "/api/hubs/cpa/plan", ASK, expect=502)
        assert "not sent again" in again["error"]["message"]
    listed = gateway.api("GET", "/api/hubs", expect=200)["hubs"][0]
    assert "not sent again" in listed["error"]
    sibling = gateway.sibling().start()  # another process of the cluster holds it back too
    try:
        for _ in range(5):
            elsewhere = sibling.api("POST", "/api/hubs/cpa/plan", ASK, expect=502)
            assert "not sent again" in elsewhere["error"]["message"]
    finally:
        sibling.close()
    assert hub.failures == 1 and not hub.banned
    gateway.api("PUT", "/api/endpoints/cpa/hub", {"hub": "cliproxy", "admin_key": MANAGEMENT}, expect=200)
    gateway.api("POST", "/api/hubs/cpa/plan", ASK, expect=200)


def test_a_list_changed_underneath_stops_the_add(gateway: Gateway, hub: CliProxyHub):
    _endpoint(gateway, hub)
    hub.edit_after_reads(1, "openrouter", [{"name": "someone/else", "alias": "else"}])
    refused = gateway.api("POST", "/api/hubs/cpa/add", ASK, expect=409)
    assert "changed while" in refused["error"]["message"]
    assert hub.calls_to("PATCH", PROVIDERS) == []


def test_a_provider_gone_underneath_is_named(gateway: Gateway, hub: CliProxyHub):
    _endpoint(gateway, hub)
    hub.edit_after_reads(1, "openrouter", None)
    refused = gateway.api("POST", "/api/hubs/cpa/add", ASK, expect=409)
    assert "no longer has the provider `openrouter`" in refused["error"]["message"]
    assert hub.calls_to("PATCH", PROVIDERS) == []


def test_an_id_another_provider_serves_is_refused(gateway: Gateway, hub: CliProxyHub):
    _endpoint(gateway, hub)
    refused = gateway.api(
        "POST", "/api/hubs/cpa/plan", {"model": "llama-fast", "connection": "openrouter"}, 200
    )
    assert refused["plan"]["served_id"] == "or/llama-fast", "a prefix keeps it apart from groq's"
    hub.providers[0]["prefix"] = ""
    clash = gateway.api(
        "POST", "/api/hubs/cpa/plan", {"model": "llama-fast", "connection": "openrouter"}, 409
    )
    assert clash["error"]["field"] == "model" and "`groq`" in clash["error"]["message"]


def test_management_off_and_remote_management_disabled_are_told_apart(gateway: Gateway, hub: CliProxyHub):
    _endpoint(gateway, hub)
    hub.management_on = False
    off = gateway.api("POST", "/api/hubs/cpa/plan", ASK, expect=502)
    assert "management API off" in off["error"]["message"] and "secret-key" in off["error"]["message"]
    hub.management_on, hub.remote_allowed = True, False
    remote = gateway.api("POST", "/api/hubs/cpa/plan", ASK, expect=502)
    assert "remote management is disabled" in remote["error"]["message"]
    assert hub.failures == 0
