"""The LiteLLM adapter against the real proxy from PyPI, in config mode (it has no database here).

What runs for real: the version and connections read, the plan (a dry
run) and the refusal to add without a database. The add itself, which
needs the proxy's database, runs against a stand-in: test_litellm_add.py.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from tests.support.gateway import Gateway
from tests.support.litellm_proxy_hub import LiteLLMProxy
from tests.support.upstream import FakeUpstream

MASTER = "sk-master-loopback-1234"
CREDENTIAL_KEY = "sk-cred-secret-555666"
LITERAL_KEY = "sk-literal-secret-987654"
HEADER_SECRET = "supersecretvalue123"


@pytest.fixture(scope="module")
def proxy(tmp_path_factory: pytest.TempPathFactory, upstream_server: FakeUpstream) -> Iterator[LiteLLMProxy]:
    config = {
        "model_list": [
            {
                "model_name": "gpt-a",
                "litellm_params": {
                    "model": "openai/gpt-a",
                    "api_base": upstream_server.url,
                    "litellm_credential_name": "loop-cred",
                    "extra_headers": {"X-Title": "bench", "X-Api-Key": HEADER_SECRET},
                },
            },
            {
                "model_name": "claude-b",
                "litellm_params": {"model": "anthropic/claude-b", "api_key": LITERAL_KEY},
            },
        ],
        "credential_list": [
            {
                "credential_name": "loop-cred",
                "credential_values": {"api_key": CREDENTIAL_KEY},
                "credential_info": {"description": "the loopback upstream"},
            }
        ],
    }
    server = LiteLLMProxy(Path(tmp_path_factory.mktemp("litellm")), MASTER, config).start()
    try:
        yield server
    finally:
        server.stop()


def _hub_endpoint(gateway: Gateway, proxy: LiteLLMProxy) -> None:
    gateway.add_endpoint("proxy", f"{proxy.url}/v1", key=MASTER, hub="litellm", admin_key=MASTER)


def _loopback(upstream: FakeUpstream) -> str:
    return urlsplit(upstream.url).netloc


def test_the_real_proxy_shows_its_version_and_connections(
    gateway: Gateway, proxy: LiteLLMProxy, upstream: FakeUpstream
):
    _hub_endpoint(gateway, proxy)
    (hub,) = gateway.api("GET", "/api/hubs", expect=200)["hubs"]
    assert (hub["endpoint"], hub["program"], hub["error"]) == ("proxy", "LiteLLM proxy", None)
    assert hub["version"].startswith("1.") and hub["checked"] is True
    connections = {c["name"]: c["models"] for c in hub["connections"]}
    assert connections == {_loopback(upstream): ["gpt-a"], "anthropic": ["claude-b"]}
    assert proxy.outbound() == []


def test_a_plan_copies_the_siblings_connection_sends_no_key_and_says_the_proxy_lacks_a_database(
    gateway: Gateway, proxy: LiteLLMProxy, upstream: FakeUpstream
):
    _hub_endpoint(gateway, proxy)
    connection = _loopback(upstream)
    before = httpx.get(f"{proxy.url}/model/info", headers={"Authorization": f"Bearer {MASTER}"}).json()
    plan = gateway.api("POST", "/api/hubs/proxy/plan", {"model": "gpt-new", "connection": connection}, 200)[
        "plan"
    ]
    (request,) = plan["requests"]
    assert (request["method"], request["path"]) == ("POST", "/model/new")
    assert request["body"] == {
        "model_name": "gpt-new",
        "litellm_params": {
            "model": "openai/gpt-new",
            "api_base": upstream.url,
            "litellm_credential_name": "loop-cred",
            "extra_headers": {"X-Title": "bench"},
        },
        "model_info": {"tags": [connection]},
    }
    assert any("X-Api-Key" in note and "masked" in note for note in plan["notes"])
    assert "no database" in plan["blocked"] and "config.yaml" in plan["blocked"]
    assert plan["served_id"] == "gpt-new" and plan["already"] is False
    for secret in (CREDENTIAL_KEY, LITERAL_KEY, HEADER_SECRET, MASTER):
        assert secret not in str(plan)
    after = httpx.get(f"{proxy.url}/model/info", headers={"Authorization": f"Bearer {MASTER}"}).json()
    assert [d["model_name"] for d in after["data"]] == [d["model_name"] for d in before["data"]]
    assert proxy.outbound() == []


def test_adding_to_the_real_proxy_without_a_database_is_refused_with_what_to_change(
    gateway: Gateway, proxy: LiteLLMProxy, upstream: FakeUpstream
):
    _hub_endpoint(gateway, proxy)
    refused = gateway.api(
        "POST", "/api/hubs/proxy/add", {"model": "gpt-new", "connection": _loopback(upstream)}, 409
    )
    message = refused["error"]["message"]
    assert "no database" in message and "DATABASE_URL" in message and "STORE_MODEL_IN_DB" in message
    assert gateway.api("GET", "/api/onboarding", expect=200)["items"] == []
    models = httpx.get(f"{proxy.url}/v1/models", headers={"Authorization": f"Bearer {MASTER}"}).json()
    assert sorted(m["id"] for m in models["data"]) == ["claude-b", "gpt-a"]


def test_a_name_another_connection_serves_is_refused(
    gateway: Gateway, proxy: LiteLLMProxy, upstream: FakeUpstream
):
    _hub_endpoint(gateway, proxy)
    refused = gateway.api(
        "POST", "/api/hubs/proxy/plan", {"model": "claude-b", "connection": _loopback(upstream)}, 409
    )
    assert refused["error"]["field"] == "model" and "`anthropic`" in refused["error"]["message"]


def test_a_model_the_connection_serves_already_needs_nothing(gateway: Gateway, proxy: LiteLLMProxy):
    _hub_endpoint(gateway, proxy)
    plan = gateway.api("POST", "/api/hubs/proxy/plan", {"model": "claude-b", "connection": "anthropic"}, 200)[
        "plan"
    ]
    assert plan["already"] is True
    assert any("no key is ever sent" in note for note in plan["notes"])
