"""Reading the onboarding queue in tests: wait for it to settle, pick an item by alias."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream


def queue(gateway: Gateway) -> dict[str, Any]:
    shown: dict[str, Any] = gateway.api("GET", "/api/onboarding", expect=200)
    return shown


def onboard(gateway: Gateway, *served_ids: str, expect: int = 202, **fields: Any) -> Any:
    items = [{"endpoint": "up", "served_id": served_id} for served_id in served_ids]
    return gateway.api("POST", "/api/onboarding", {"items": items, **fields}, expect=expect)


def wait_until(
    gateway: Gateway, settled: Callable[[dict[str, Any]], bool], timeout: float = 60.0
) -> dict[str, Any]:
    """The queue once `settled` says so (polled as the dashboard does)."""
    deadline = time.monotonic() + timeout
    while True:
        shown = queue(gateway)
        if settled(shown):
            return shown
        if time.monotonic() > deadline:
            raise AssertionError(f"the onboarding queue did not settle in {timeout} s: {shown}")
        time.sleep(0.1)


def wait_for_queue(gateway: Gateway, timeout: float = 60.0) -> dict[str, Any]:
    """The queue once nothing in it waits or runs."""
    return wait_until(gateway, lambda shown: shown["items"] and shown["waiting"] == 0, timeout)


def wait_for_request(upstream: FakeUpstream, model: str, count: int = 1, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while len(upstream.requests_for(model)) < count:
        if time.monotonic() > deadline:
            raise AssertionError(f"the upstream got {len(upstream.requests_for(model))} calls for {model}")
        time.sleep(0.05)


def by_alias(shown: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {item["alias"]: item for item in shown["items"]}


def steps(item: dict[str, Any]) -> dict[str, str]:
    return {step["name"]: step["state"] for step in item["steps"]}


def onboard_calls(gateway: Gateway) -> list[tuple[str, str, str | None]]:
    """(alias, status, error kind) of every ledger row with purpose `onboard`, oldest first."""
    recent = gateway.api("GET", "/api/usage?limit=1000", expect=200)["recent"]
    return [
        (row["alias"], row["status"], row["error_kind"])
        for row in reversed(recent)
        if row["purpose"] == "onboard"
    ]
