"""What the hub tests share: waiting for a model to reach the bench, and finding secrets where none belong."""

from __future__ import annotations

import json
import time
from collections.abc import Iterable
from typing import Any

from tests.support.gateway import Gateway
from tests.support.json_hub import HubCall


def on_bench(gateway: Gateway, alias: str, timeout: float = 20.0) -> dict[str, Any]:
    """The model `alias` once onboarding's register step put it on the bench."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for model in gateway.api("GET", "/api/models", expect=200)["models"]:
            if model["alias"] == alias:
                return dict(model)
        time.sleep(0.2)
    raise AssertionError(f"`{alias}` did not reach the bench within {timeout} s")


def secrets_in_bodies(calls: Iterable[HubCall], secrets: Iterable[str]) -> list[str]:
    """The secrets that appear in any request body (headers are checked apart)."""
    text = " ".join(json.dumps(c.body) for c in calls)
    return [s for s in secrets if s in text]


def gateway_shows_no(gateway: Gateway, *secrets: str) -> None:
    """None of `secrets` in the endpoints, hubs, audit, onboarding replies or the config export."""
    for path in ("/api/endpoints", "/api/audit", "/api/onboarding", "/api/models"):
        text = json.dumps(gateway.api("GET", path, expect=200))
        for secret in secrets:
            assert secret not in text, f"a secret in {path}"
    database = (
        (gateway.home / "panelgate.db").read_bytes() if (gateway.home / "panelgate.db").exists() else b""
    )
    for secret in secrets:
        assert secret.encode() not in database, "a secret in the database file"
