"""OpenRouter's key flow: PKCE in the browser, the provider hands back a key, the key serves a panel."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from tests.connect.helpers import ask_panel, browse, kept_keys, seat_status, start, status
from tests.support.gateway import Gateway
from tests.support.oauth_provider import OAuthProvider

ATTRIBUTION = {  # OpenRouter's attribution headers: their values are kept as secrets too
    "openrouter-header-http-referer": "https://github.com/panelgate/panelgate",
    "openrouter-header-x-title": "panelgate",
}


def test_key_flow_returns_without_state_and_the_key_serves_a_panel(gateway: Gateway, provider: OAuthProvider):
    started = start(gateway, "openrouter")
    assert (started["flow"], started["status"], started["endpoint"]) == ("key", "pending", "openrouter")
    assert started["url"].startswith(f"{provider.url}/auth?")
    callback = parse_qs(urlsplit(started["url"]).query)["callback_url"]
    assert callback == [f"{gateway.url}/connect/callback/{started['signin']}"], (
        "the sign-in id rides in the path"
    )

    page = browse(started["url"])
    assert page.status_code == 200, page.text
    assert "Connected: openrouter" in page.text
    assert status(gateway, started["signin"])["status"] == "connected"

    (key,) = provider.state.issued
    assert kept_keys(gateway) == {"openrouter": key, **ATTRIBUTION}, "the key is kept, with no refresh token"
    (endpoint,) = gateway.api("GET", "/api/endpoints", expect=200)["endpoints"]
    assert endpoint["name"] == "openrouter" and endpoint["key"] == "file"
    assert endpoint["headers"]["X-Title"] == {"key_name": "openrouter-header-x-title", "key": "file"}
    reply = ask_panel(gateway, "openrouter")
    assert reply.status_code == 200 and seat_status(reply) == ["ok"], reply.text
    assert provider.state.chats == [key]
    (shown,) = gateway.api("GET", "/api/connect/endpoints", expect=200)["endpoints"]
    assert shown == {
        "endpoint": "openrouter",
        "provider": "openrouter",
        "client_id": "built-in",
        "expires_at": None,
        "refreshes": False,
        "renewed_at": None,
        "renewal_error": None,
    }


def test_a_second_account_gets_its_own_endpoint_and_leaves_the_first_alone(gateway: Gateway):
    first = start(gateway, "openrouter")
    assert "Connected: openrouter" in browse(first["url"]).text
    second = start(gateway, "openrouter")
    assert second["endpoint"] == "openrouter-2"
    assert "Connected: openrouter-2" in browse(second["url"]).text
    keys = kept_keys(gateway)
    assert {"openrouter", "openrouter-2"} <= set(keys) and keys["openrouter"] != keys["openrouter-2"]
    providers = gateway.api("GET", "/api/connect/providers", expect=200)["providers"]
    assert next(p for p in providers if p["name"] == "openrouter")["connected"] == [
        "openrouter",
        "openrouter-2",
    ]


def test_signing_in_again_keeps_the_endpoint_and_replaces_its_key(gateway: Gateway):
    first = start(gateway, "openrouter")
    browse(first["url"])
    old_key = kept_keys(gateway)["openrouter"]
    again = start(gateway, "openrouter", endpoint="openrouter")
    assert again["endpoint"] == "openrouter"
    assert "Connected: openrouter" in browse(again["url"]).text
    assert kept_keys(gateway)["openrouter"] != old_key
    assert [e["name"] for e in gateway.api("GET", "/api/endpoints")["endpoints"]] == ["openrouter"]


def test_a_name_taken_by_another_endpoint_or_key_is_refused_with_a_free_one(gateway: Gateway, upstream):
    gateway.add_endpoint("mine", upstream.url)
    refused = gateway.api("POST", "/api/connect/openrouter", {"endpoint": "mine"}, expect=409)
    assert refused["error"]["field"] == "endpoint"
    assert "`openrouter` is free" in refused["error"]["message"]


def test_a_reused_callback_is_not_connected(gateway: Gateway, provider: OAuthProvider):
    started = start(gateway, "openrouter")
    first = browse(started["url"])
    assert first.status_code == 200
    again = browse(str(first.url))
    assert again.status_code == 400 and "Not connected" in again.text
    assert kept_keys(gateway) == {"openrouter": provider.state.issued[0], **ATTRIBUTION}
