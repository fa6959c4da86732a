"""GitHub's device code (a browser on any machine) and Ollama found on this machine without a key."""

from __future__ import annotations

import httpx

from tests.connect.helpers import ask_panel, kept_keys, poll_until_done, seat_status, start, status
from tests.support.gateway import Gateway
from tests.support.oauth_provider import OAuthProvider
from tests.support.upstream import FakeUpstream


def test_device_sign_in_finishes_once_the_code_is_typed_and_serves_a_panel(
    gateway: Gateway, provider: OAuthProvider
):
    listed = gateway.api("GET", "/api/connect/providers", expect=200)["providers"]
    github = next(p for p in listed if p["name"] == "github")
    assert (github["flow"], github["device"], github["client_id"]) == ("device", True, "yours")
    started = start(gateway, "github")
    assert started["status"] == "pending" and started["verification_uri"] == f"{provider.url}/device"
    assert "url" not in started and started["user_code"]
    approved = httpx.post(started["verification_uri"], data={"user_code": started["user_code"]})
    assert approved.status_code == 200
    assert poll_until_done(gateway, started["signin"])["status"] == "connected"
    access, refresh = provider.state.issued
    assert kept_keys(gateway) == {"github": access, "github.refresh": refresh}
    assert seat_status(ask_panel(gateway, "github")) == ["ok"]


def test_device_polls_wait_for_the_interval_and_slow_down(gateway: Gateway, provider: OAuthProvider):
    provider.state.slow_downs = 1
    started = start(gateway, "github")
    assert status(gateway, started["signin"])["status"] == "pending"
    assert provider.grants("urn:ietf:params:oauth:grant-type:device_code") == 0, "not before the interval"
    polled = 0
    while polled == 0:
        status(gateway, started["signin"])
        polled = provider.grants("urn:ietf:params:oauth:grant-type:device_code")
    assert polled == 1, "the first poll was told to slow down"
    for _ in range(5):
        status(gateway, started["signin"])
    assert provider.grants("urn:ietf:params:oauth:grant-type:device_code") == 1, "5 s more before the next"


def test_a_device_sign_in_from_another_machine_where_the_provider_offers_none_is_refused(gateway: Gateway):
    refused = gateway.api("POST", "/api/connect/openrouter", {"device": True}, expect=400)
    assert refused["error"]["field"] == "device" and "no device sign-in" in refused["error"]["message"]


def test_ollama_on_this_machine_is_connected_at_once_without_a_key(gateway: Gateway, upstream: FakeUpstream):
    upstream.serve("llama3")
    started = start(gateway, "ollama")
    assert (started["flow"], started["status"], started["endpoint"]) == ("local", "connected", "ollama")
    (endpoint,) = gateway.api("GET", "/api/endpoints")["endpoints"]
    assert (endpoint["kind"], endpoint["key_name"], endpoint["base_url"]) == ("local", None, upstream.url)
    assert kept_keys(gateway) == {}


def test_ollama_that_does_not_answer_is_a_clear_refusal(gateway: Gateway, upstream: FakeUpstream):
    upstream.require_key = "sk-not-ollama"  # its /models answers 401: not an Ollama that needs no key
    refused = gateway.api("POST", "/api/connect/ollama", {}, expect=400)
    assert refused["error"]["field"] == "provider"
    assert "does not answer" in refused["error"]["message"] and "ollama serve" in refused["error"]["message"]
    assert gateway.api("GET", "/api/endpoints")["endpoints"] == []
