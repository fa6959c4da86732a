"""Hugging Face's way: authorization code + PKCE back to /connect/callback, the refresh token a secret."""

from __future__ import annotations

import sqlite3

from tests.connect.helpers import ask_panel, browse, kept_keys, seat_status, start, status
from tests.support.gateway import Gateway
from tests.support.oauth_provider import CLIENT_ID, OAuthProvider


def test_oauth_sign_in_with_your_own_client_id_keeps_both_tokens_and_serves_a_panel(
    gateway: Gateway, provider: OAuthProvider
):
    listed = gateway.api("GET", "/api/connect/providers", expect=200)["providers"]
    hf = next(p for p in listed if p["name"] == "huggingface")
    assert (hf["flow"], hf["client_id"], hf["device"]) == ("oauth", "needed", False)

    started = start(gateway, "huggingface", client_id=CLIENT_ID)
    assert started["url"].startswith(f"{provider.url}/authorize?")
    page = browse(started["url"])
    assert page.status_code == 200 and "Connected: huggingface" in page.text, page.text
    assert status(gateway, started["signin"]) == {
        "signin": started["signin"],
        "provider": "huggingface",
        "flow": "oauth",
        "endpoint": "huggingface",
        "status": "connected",
        "error": None,
    }
    access, refresh = provider.state.issued
    assert kept_keys(gateway) == {"huggingface": access, "huggingface.refresh": refresh}
    (shown,) = gateway.api("GET", "/api/connect/endpoints", expect=200)["endpoints"]
    assert (shown["client_id"], shown["refreshes"]) == ("yours", True) and shown["expires_at"]
    reply = ask_panel(gateway, "huggingface")
    assert seat_status(reply) == ["ok"] and provider.state.chats == [access]
    with sqlite3.connect(gateway.home / "panelgate.db") as db:
        dumped = "\n".join(db.iterdump())
    assert access not in dumped and refresh not in dumped


def test_without_a_client_id_the_sign_in_asks_for_yours(gateway: Gateway):
    refused = gateway.api("POST", "/api/connect/huggingface", {}, expect=400)
    assert refused["error"]["field"] == "client_id" and "client id" in refused["error"]["message"]


def test_a_refused_consent_is_not_connected(gateway: Gateway, provider: OAuthProvider):
    provider.state.deny = True
    started = start(gateway, "huggingface", client_id=CLIENT_ID)
    page = browse(started["url"])
    assert page.status_code == 400 and "Not connected" in page.text and "access_denied" in page.text
    shown = status(gateway, started["signin"])
    assert shown["status"] == "failed" and "access_denied" in shown["error"]
    assert gateway.api("GET", "/api/endpoints")["endpoints"] == []


def test_a_bad_or_reused_state_is_not_connected(gateway: Gateway, provider: OAuthProvider):
    forged = browse(f"{gateway.url}/connect/callback?code=abc&state=made-up")
    assert forged.status_code == 400 and "Not connected" in forged.text
    started = start(gateway, "huggingface", client_id=CLIENT_ID)
    landed = browse(started["url"])
    assert landed.status_code == 200
    replayed = browse(str(landed.url))
    assert replayed.status_code == 400 and "Not connected" in replayed.text
    assert provider.grants("authorization_code") == 1, "a used state never reaches the provider again"


def test_a_device_sign_in_is_refused_where_the_provider_has_no_device_endpoint(gateway: Gateway):
    refused = gateway.api(
        "POST", "/api/connect/huggingface", {"device": True, "client_id": CLIENT_ID}, expect=400
    )
    assert refused["error"]["field"] == "device"


def test_forgetting_a_sign_in_drops_its_refresh_token_and_keeps_the_endpoint(gateway: Gateway):
    browse(start(gateway, "huggingface", client_id=CLIENT_ID)["url"])
    forgotten = gateway.api("DELETE", "/api/connect/endpoints/huggingface", expect=200)
    assert forgotten == {"ok": True, "forgotten": "huggingface"}
    assert set(kept_keys(gateway)) == {"huggingface"}
    assert gateway.api("GET", "/api/connect/endpoints")["endpoints"] == []
    assert [e["name"] for e in gateway.api("GET", "/api/endpoints")["endpoints"]] == ["huggingface"]
    gateway.api("DELETE", "/api/connect/endpoints/huggingface", expect=404)


def test_a_key_typed_over_a_sign_in_ends_it(gateway: Gateway, provider: OAuthProvider):
    browse(start(gateway, "huggingface", client_id=CLIENT_ID)["url"])
    provider.state.live.add("hf-typed-by-hand-0001")
    gateway.api("PUT", "/api/endpoints/huggingface/key", {"key": "hf-typed-by-hand-0001"}, expect=200)
    assert kept_keys(gateway) == {"huggingface": "hf-typed-by-hand-0001"}, "the refresh token went too"
    assert gateway.api("GET", "/api/connect/endpoints")["endpoints"] == [], "nothing renews over it"
    reply = ask_panel(gateway, "huggingface")
    assert seat_status(reply) == ["ok"] and provider.state.chats == ["hf-typed-by-hand-0001"]
