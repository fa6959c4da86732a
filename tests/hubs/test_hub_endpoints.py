"""An endpoint becomes a hub: its program and admin key (kept as `<key name>-admin`, never shown),
exported with the configuration, and every hub read at once by `GET /api/hubs`."""

from __future__ import annotations

import httpx
import yaml

from tests.hubs.helpers import gateway_shows_no
from tests.support.cliproxy_hub import CliProxyHub
from tests.support.gateway import Gateway
from tests.support.litellm_hub import LiteLLMHub

ADMIN = "sk-hub-admin-0f0f0f0f"
KEY = "sk-hub-user-1e1e1e1e"
DEPLOYMENT = {
    "model_name": "small",
    "litellm_params": {"model": "openai/small", "api_base": "https://a.example/v1"},
}


def test_the_admin_key_is_kept_under_the_key_name_with_admin_and_never_shown(gateway: Gateway):
    with LiteLLMHub(KEY, [DEPLOYMENT]) as hub:
        added = gateway.add_endpoint(
            "proxy", f"{hub.url}/v1", key=KEY, key_name="proxy-key", hub="litellm", admin_key=ADMIN
        )
    shown = added["endpoint"]
    assert (shown["hub"], shown["admin_key_name"], shown["admin_key"]) == (
        "litellm",
        "proxy-key-admin",
        "file",
    )
    keys = (gateway.home / "keys.json").read_text()
    assert f'"proxy-key-admin": "{ADMIN}"' in keys
    assert ADMIN not in str(added)
    gateway_shows_no(gateway, ADMIN, KEY)
    page = httpx.get(f"{gateway.url}/endpoints", timeout=30).text
    assert "litellm hub" in page and "admin key set" in page and ADMIN not in page
    exported = yaml.safe_load(httpx.get(f"{gateway.url}/api/config", timeout=30).text)
    (endpoint,) = exported["endpoints"]
    assert (endpoint["hub"], endpoint["admin_key_name"]) == ("litellm", "proxy-key-admin")
    assert ADMIN not in str(exported)


def test_the_hub_and_its_admin_key_change_and_clear_with_an_audit_row_that_names_no_secret(gateway: Gateway):
    with LiteLLMHub(KEY, [DEPLOYMENT]) as hub:
        gateway.add_endpoint("proxy", f"{hub.url}/v1", key=KEY)
    changed = gateway.api(
        "PUT", "/api/endpoints/proxy/hub", {"hub": "litellm", "admin_key": ADMIN}, expect=200
    )
    assert (changed["hub"], changed["admin_key_name"], changed["admin_key"]) == (
        "litellm",
        "proxy-admin",
        "file",
    )
    audit = gateway.api("GET", "/api/audit", expect=200)["changes"][0]
    assert (audit["action"], audit["after"]) == (
        "admin-key",
        {"admin_key_name": "proxy-admin", "admin_key": "set"},
    )
    cleared = gateway.api("PUT", "/api/endpoints/proxy/hub", {"hub": None, "admin_key": None}, expect=200)
    assert (cleared["hub"], cleared["admin_key_name"], cleared["admin_key"]) == (None, None, None)
    assert "proxy-admin" not in (gateway.home / "keys.json").read_text()
    refused = gateway.api("PUT", "/api/endpoints/proxy/hub", {"hub": "ollama"}, expect=400)
    assert refused["error"]["field"] == "hub"
    gateway_shows_no(gateway, ADMIN, KEY)


def test_a_hub_that_does_not_answer_is_reported_while_the_others_are_offered(gateway: Gateway):
    with LiteLLMHub(KEY, [DEPLOYMENT]) as litellm, CliProxyHub(ADMIN, [], client_key=KEY) as gone:
        gateway.add_endpoint("proxy", f"{litellm.url}/v1", key=KEY, hub="litellm")
        gateway.add_endpoint("cpa", f"{gone.url}/v1", key=KEY, hub="cliproxy", admin_key=ADMIN)
        gone.stop()
        hubs = {h["endpoint"]: h for h in gateway.api("GET", "/api/hubs", expect=200)["hubs"]}
    assert hubs["proxy"]["error"] is None
    assert hubs["proxy"]["connections"] == [
        {"name": "a.example", "detail": "https://a.example/v1", "models": ["small"]}
    ]
    assert "did not answer" in hubs["cpa"]["error"] and hubs["cpa"]["connections"] == []
    assert hubs["cpa"]["checked_against"] == ["7.2"] and hubs["cpa"]["program"] == "CLI Proxy API"


def test_an_endpoint_that_is_not_a_hub_has_no_plan(bench: Gateway):
    refused = bench.api("POST", "/api/hubs/up/plan", {"model": "m9", "connection": "x"}, expect=404)
    assert refused["error"]["field"] == "endpoint" and "not" in refused["error"]["message"]
    assert bench.api("GET", "/api/hubs", expect=200) == {"hubs": []}


def test_a_configuration_file_brings_the_hub_and_the_admin_key_name(gateway: Gateway):
    document = """
version: 1
endpoints:
  - name: webui
    base_url: https://chat.example/api
    key_name: webui
    hub: openwebui
    admin_key_name: webui-admin
"""
    gateway.api("POST", "/api/config", {"yaml": document}, expect=200)
    (endpoint,) = gateway.api("GET", "/api/endpoints", expect=200)["endpoints"]
    assert (endpoint["hub"], endpoint["admin_key_name"], endpoint["admin_key"]) == (
        "openwebui",
        "webui-admin",
        None,
    )
    wrong = gateway.api("POST", "/api/config", {"yaml": document.replace("openwebui", "jupyter")}, expect=400)
    assert "hub" in wrong["error"]["message"]
