"""What the Endpoints page shows: each endpoint with where its key is kept and the models it serves.

A key is only ever described by where it is kept, never shown.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from panelgate.http.services import Services
from panelgate.store.records import EndpointRecord
from panelgate.upstream.keys import KeyFileError, KeyStore, env_name


@dataclass(frozen=True)
class KeyState:
    """Where an endpoint's key is kept, in words, and how it is marked; never the key."""

    text: str
    chip: str
    is_set: bool


@dataclass(frozen=True)
class EndpointCard:
    endpoint: EndpointRecord
    key: KeyState
    on_bench: list[str]
    retired: int

    @property
    def fill(self) -> dict[str, Any]:
        """What the key dialog opens with: the endpoint's name and whether it has a key to remove."""
        return {"name": self.endpoint.name, "has_key": self.key.is_set}


@dataclass(frozen=True)
class Connections:
    cards: list[EndpointCard]
    endpoints: list[EndpointRecord]


def key_state(keys: KeyStore, key_name: str | None) -> KeyState:
    try:
        source = keys.source(key_name) if key_name else None
    except KeyFileError:
        return KeyState("key file unreadable", "error", False)
    if source == "env":
        return KeyState(f"key from {env_name(key_name or '')}", "ok", True)
    if source == "file":
        return KeyState("key set", "ok", True)
    return KeyState("no key", "skipped", False)


async def read_connections(services: Services) -> Connections:
    endpoints = await services.db.endpoints.list()
    models = await services.db.models.list(include_retired=True)
    cards = [
        EndpointCard(
            endpoint,
            key_state(services.keys, endpoint.key_name),
            sorted(m.alias for m in models if m.endpoint == endpoint.name and not m.retired),
            sum(1 for m in models if m.endpoint == endpoint.name and m.retired and not m.endpoint_gone),
        )
        for endpoint in endpoints
    ]
    return Connections(cards, endpoints)
