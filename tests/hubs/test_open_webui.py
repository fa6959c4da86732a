"""Adding a model through Open WebUI (a loopback stand-in of 0.12's documented endpoints: the real
package needs gigabytes of dependencies), then onboarding it."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import pytest

from tests.hubs.helpers import gateway_shows_no, on_bench
from tests.support.gateway import Gateway
from tests.support.open_webui_hub import OpenWebUIHub

ADMIN = "sk-owui-admin-1111aaaa"
USER = "sk-owui-user-2222bbbb"
ROUTER_KEY = "sk-or-v1-3333cccc"
GROQ_KEY = "gsk_4444dddd"
CONFIG: dict[str, Any] = {
    "ENABLE_OPENAI_API": True,
    "OPENAI_API_BASE_URLS": ["https://openrouter.ai/api/v1", "https://api.groq.com/openai/v1"],
    "OPENAI_API_KEYS": [ROUTER_KEY, GROQ_KEY],
    "OPENAI_API_CONFIGS": {
        "0": {"enable": True, "model_ids": ["org/alpha:free"], "tags": [{"name": "router"}], "prefix_id": ""},
        "1": {"enable": True, "model_ids": [], "connection_type": "external"},
    },
}
UPSTREAMS = {0: ["org/alpha:free", "org/beta:free", "org/gamma:free"], 1: ["llama-fast", "qwen-fast"]}


@pytest.fixture
def hub() -> Iterator[OpenWebUIHub]:
    with OpenWebUIHub(ADMIN, CONFIG, UPSTREAMS, user_key=USER) as server:
        yield server


def _endpoint(gateway: Gateway, hub: OpenWebUIHub) -> None:
    gateway.add_endpoint("webui", f"{hub.url}/api", key=USER, hub="openwebui", admin_key=ADMIN)


def test_a_model_id_list_in_use_gets_the_model_and_the_config_is_written_back_as_read(
    gateway: Gateway, hub: OpenWebUIHub
):
    _endpoint(gateway, hub)
    added = gateway.api(
        "POST", "/api/hubs/webui/add", {"model": "org/beta:free", "connection": "openrouter.ai"}, expect=200
    )
    (update,) = hub.calls_to("POST", "/openai/config/update")
    expected = copy.deepcopy(CONFIG)
    expected["OPENAI_API_CONFIGS"]["0"]["model_ids"] = ["org/alpha:free", "org/beta:free"]
    assert update.body == expected
    assert update.headers["authorization"] == f"Bearer {ADMIN}"
    (create,) = hub.calls_to("POST", "/api/v1/models/create")
    assert create.body["id"] == "org/beta:free" and create.body["base_model_id"] is None
    assert create.body["access_grants"] == [
        {"principal_type": "user", "principal_id": "*", "permission": "read"}
    ]
    assert create.body["meta"]["tags"] == [{"name": "router"}]
    shown = str(added)
    assert ROUTER_KEY not in shown and GROQ_KEY not in shown and ADMIN not in shown
    assert on_bench(gateway, "beta-free")["served_id"] == "org/beta:free"
    gateway_shows_no(gateway, ADMIN, USER, ROUTER_KEY, GROQ_KEY)


def test_a_connection_listing_everything_keeps_its_empty_list_and_only_gets_a_record(
    gateway: Gateway, hub: OpenWebUIHub
):
    _endpoint(gateway, hub)
    plan = gateway.api(
        "POST", "/api/hubs/webui/plan", {"model": "qwen-fast", "connection": "api.groq.com"}, expect=200
    )["plan"]
    assert [(r["method"], r["path"]) for r in plan["requests"]] == [("POST", "/api/v1/models/create")]
    assert hub.writes() == []
    gateway.api(
        "POST", "/api/hubs/webui/add", {"model": "qwen-fast", "connection": "api.groq.com"}, expect=200
    )
    assert hub.calls_to("POST", "/openai/config/update") == []
    assert "qwen-fast" in hub.records


def test_a_model_another_connection_serves_is_refused(gateway: Gateway, hub: OpenWebUIHub):
    _endpoint(gateway, hub)
    refused = gateway.api(
        "POST", "/api/hubs/webui/add", {"model": "llama-fast", "connection": "openrouter.ai"}, expect=409
    )
    assert refused["error"]["field"] == "model" and "api.groq.com" in refused["error"]["message"]
    assert hub.writes() == []


def test_masked_keys_stop_the_config_from_being_written_back(gateway: Gateway, hub: OpenWebUIHub):
    hub.mask_keys = True
    _endpoint(gateway, hub)
    refused = gateway.api(
        "POST", "/api/hubs/webui/add", {"model": "org/gamma:free", "connection": "openrouter.ai"}, expect=409
    )
    assert "masked" in refused["error"]["message"]
    assert hub.writes() == [] and hub.config == CONFIG


def test_an_id_the_upstream_does_not_list_is_refused_where_the_list_is_not_in_use(
    gateway: Gateway, hub: OpenWebUIHub
):
    _endpoint(gateway, hub)
    plan = gateway.api(
        "POST", "/api/hubs/webui/plan", {"model": "no-such-model", "connection": "api.groq.com"}, expect=200
    )["plan"]
    assert "does not serve" in plan["blocked"]
    gateway.api(
        "POST", "/api/hubs/webui/add", {"model": "no-such-model", "connection": "api.groq.com"}, expect=409
    )
    assert hub.writes() == []


def test_an_unknown_connection_names_the_ones_there_are(gateway: Gateway, hub: OpenWebUIHub):
    _endpoint(gateway, hub)
    refused = gateway.api("POST", "/api/hubs/webui/plan", {"model": "x", "connection": "nowhere"}, expect=404)
    assert refused["error"]["field"] == "connection"
    assert "openrouter.ai" in refused["error"]["message"] and "api.groq.com" in refused["error"]["message"]
