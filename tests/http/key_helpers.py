"""A bench that asks for gateway keys, and the keys tests make on it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

from tests.conftest import arrange_bench
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream

ADMIN_TOKEN = "admin-token-for-key-tests"


@contextmanager
def keyed_bench(home: Path, upstream: FakeUpstream) -> Iterator[Gateway]:
    """Keys required on loopback, an admin token; collections `core` (m1–m3) and `other` (m1, m2)."""
    server = Gateway(home, env={"PANELGATE_REQUIRE_KEYS": "1", "PANELGATE_ADMIN_TOKEN": ADMIN_TOKEN}).start()
    try:
        arrange_bench(server, upstream)
        server.save_collection("other", ["m1", "m2"], description="the other bench")
        yield server
    finally:
        server.close()


def make_key(gateway: Gateway, **fields: Any) -> str:
    """A new gateway key's text (`name` "caller" unless given)."""
    created = gateway.api("POST", "/api/keys", {"name": "caller", **fields}, expect=201)
    return str(created["key"])


def revoked_key(gateway: Gateway) -> str:
    created = gateway.api("POST", "/api/keys", {"name": "old laptop"}, expect=201)
    gateway.api("POST", f"/api/keys/{created['id']}/revoke", expect=200)
    return str(created["key"])


def post(gateway: Gateway, path: str, body: Any, key: str | None = None, **headers: str) -> httpx.Response:
    if key is not None:
        headers["Authorization"] = f"Bearer {key}"
    return httpx.post(f"{gateway.url}{path}", json=body, headers=headers, timeout=60)


def get(gateway: Gateway, path: str, key: str | None = None) -> httpx.Response:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    return httpx.get(f"{gateway.url}{path}", headers=headers, timeout=60)


def refused(response: httpx.Response, status: int) -> str:
    """The refusal's message, after checking its status."""
    assert response.status_code == status, response.text
    error = response.json()["error"]
    return str(error if isinstance(error, str) else error["message"])
