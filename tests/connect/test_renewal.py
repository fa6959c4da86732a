"""Renewal: a token about to expire is renewed once across the cluster; a failed renewal raises an alert."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from tests.connect.helpers import ask_collection, ask_panel, browse, kept_keys, seat_status, start
from tests.support.gateway import Gateway
from tests.support.oauth_provider import CLIENT_ID, OAuthProvider

QUICK_LOOKS = {"PANELGATE_CONNECT_RENEW_CHECK_S": "0.1"}


def signed_in(gateway: Gateway) -> None:
    page = browse(start(gateway, "huggingface", client_id=CLIENT_ID, endpoint="huggingface")["url"])
    assert "Connected: huggingface" in page.text, page.text


def wait_for(what: Callable[[], Any], timeout: float = 10.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = what()
        if found:
            return found
        time.sleep(0.05)
    raise AssertionError(f"still waiting after {timeout} s")


def record(gateway: Gateway) -> dict[str, Any]:
    (shown,) = gateway.api("GET", "/api/connect/endpoints", expect=200)["endpoints"]
    return dict(shown)


def signin_alerts(gateway: Gateway) -> list[dict[str, Any]]:
    return [a for a in gateway.api("GET", "/api/alerts", expect=200)["alerts"] if a["kind"] == "signin"]


def test_a_token_about_to_expire_is_renewed_once_across_two_gateway_processes(
    start_gateway: Callable[..., Gateway], provider: OAuthProvider
):
    provider.state.expires_in = 120  # due within 5 minutes: renewed at the first look
    first = start_gateway(in_process=False, **QUICK_LOOKS)  # two `panelgate serve` processes
    second = start_gateway()
    signed_in(first)
    renewed = wait_for(lambda: record(second)["renewed_at"] and record(second))
    assert renewed["renewal_error"] is None
    time.sleep(1.0)  # ten more looks by each process
    assert provider.grants("refresh_token") == 1, "one process renewed it, once"
    _, _, access, refresh = provider.state.issued
    assert kept_keys(first) == {"huggingface": access, "huggingface.refresh": refresh}, "both tokens rotated"
    assert seat_status(ask_panel(second, "huggingface")) == ["ok"]
    assert seat_status(ask_collection(first)) == ["ok"]
    assert provider.state.chats == [access, access], "both processes call with the renewed token"


def test_a_failed_renewal_raises_a_signin_alert_and_retires_nothing_and_a_later_one_clears_it(
    start_gateway: Callable[..., Gateway], provider: OAuthProvider
):
    gateway = start_gateway(**QUICK_LOOKS)
    signed_in(gateway)  # an hour to live: nothing to renew yet
    assert seat_status(ask_panel(gateway, "huggingface")) == ["ok"]
    assert provider.grants("refresh_token") == 0 and signin_alerts(gateway) == []

    provider.state.fail_refresh = True
    provider.state.expires_in = 60
    signed_in(gateway)  # signed in again: this token is due at once, and the provider refuses to renew it
    failed = wait_for(lambda: record(gateway)["renewal_error"] and record(gateway))
    assert "invalid_grant" in failed["renewal_error"]
    (alert,) = wait_for(lambda: signin_alerts(gateway))
    assert alert["subject"] == "huggingface" and "sign in again" in alert["message"]
    assert seat_status(ask_collection(gateway)) == ["ok"], "the token still works until it expires"
    gateway.api("POST", "/api/scheduler/jobs/auto-retire/run", {}, expect=200)
    assert gateway.api("GET", "/api/models/signed", expect=200)["model"]["retired_at"] is None
    assert [a["subject"] for a in signin_alerts(gateway)] == ["huggingface"], "auto-retire leaves it open"

    provider.state.fail_refresh = False
    provider.state.refreshed_expires_in = 3600
    wait_for(lambda: record(gateway)["renewed_at"])  # tried again two looks after the failure
    assert signin_alerts(gateway) == [] and record(gateway)["renewal_error"] is None


def test_a_key_typed_over_a_sign_in_is_never_overwritten_by_a_renewal(
    start_gateway: Callable[..., Gateway], provider: OAuthProvider
):
    provider.state.fail_refresh = True  # renewal keeps failing (and trying) until the key is typed
    provider.state.expires_in = 60
    gateway = start_gateway(**QUICK_LOOKS)
    signed_in(gateway)
    wait_for(lambda: signin_alerts(gateway))
    typed = "sk-typed-" + "1" * 24
    provider.state.live.add(typed)  # a key the person made on the provider's site
    gateway.api("PUT", "/api/endpoints/huggingface/key", {"key": typed}, expect=200)
    provider.state.fail_refresh = False
    wait_for(lambda: gateway.api("GET", "/api/connect/endpoints")["endpoints"] == [])
    assert kept_keys(gateway) == {"huggingface": typed}, "the typed key stays; the refresh token is gone"
    assert signin_alerts(gateway) == [] and len(provider.state.issued) == 2, "nothing was renewed after it"
