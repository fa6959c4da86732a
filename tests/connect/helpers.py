"""What the sign-in tests do over and over: start a sign-in, go where the browser would, ask a panel."""

from __future__ import annotations

import time
from typing import Any

import httpx
import orjson

from tests.support.gateway import Gateway
from tests.support.oauth_provider import MODEL


def start(gateway: Gateway, provider: str, expect: int = 200, **body: Any) -> Any:
    return gateway.api("POST", f"/api/connect/{provider}", body, expect=expect)


def browse(url: str) -> httpx.Response:
    """What a browser does with the sign-in URL: follow every redirect to the gateway's last page."""
    return httpx.get(url, follow_redirects=True, timeout=30)


def status(gateway: Gateway, signin: str) -> Any:
    return gateway.api("GET", f"/api/connect/signins/{signin}", expect=200)


def poll_until_done(gateway: Gateway, signin: str, timeout: float = 15.0) -> Any:
    """Poll the sign-in as the dashboard does, until it is no longer pending."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        shown = status(gateway, signin)
        if shown["status"] != "pending":
            return shown
        time.sleep(0.2)
    raise AssertionError(f"sign-in {signin} still pending after {timeout} s")


def kept_keys(gateway: Gateway) -> dict[str, str]:
    path = gateway.home / "keys.json"
    return orjson.loads(path.read_bytes()) if path.exists() else {}


def ask_panel(gateway: Gateway, endpoint: str, alias: str = "signed") -> httpx.Response:
    """Put the provider's model on the bench through `endpoint` (its listing read with the token) and
    ask a panel of it."""
    gateway.add_model(alias, MODEL, endpoint=endpoint)
    gateway.gateway_settings(max_calls=1, max_explorers=0)
    gateway.save_collection("signed", [alias])
    return ask_collection(gateway)


def ask_collection(gateway: Gateway) -> httpx.Response:
    body = {"model": "bench/signed", "messages": [{"role": "user", "content": "say hi"}]}
    return httpx.post(f"{gateway.url}/v1/chat/completions", json=body, timeout=60)


def seat_status(reply: httpx.Response) -> list[str]:
    return [seat["status"] for seat in reply.json()["bench"]["seats"]]
