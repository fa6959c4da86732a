"""What the Endpoints page shows: each endpoint with where its key is kept and the models it serves.

A key is only ever described by where it is kept, never shown (a hub's
admin key too); an endpoint that came from a sign-in also shows how its
token stands (provider, expiry, renewal), read from its sign-in record,
which holds no token either.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from panelgate.http.services import Services
from panelgate.store.records import EndpointRecord
from panelgate.store.signin_grants import GrantRecord
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
    signin: GrantRecord | None = None
    signed_in_with: str = ""
    """The label of the provider its sign-in came from (its name when the provider is gone)."""
    admin_key: KeyState | None = None
    """A hub's admin key: where it is kept (None for an endpoint that is no hub)."""

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


def signed_in_with(services: Services, grant: GrantRecord | None) -> str:
    """The label of the provider `grant` came from; its name when the provider is no longer configured."""
    if grant is None:
        return ""
    known = services.connect.providers.get(grant.provider)
    return known.label if known is not None else grant.provider


async def read_connections(services: Services) -> Connections:
    endpoints = await services.db.endpoints.list()
    models = await services.db.models.list(include_retired=True)
    grants = {grant.endpoint: grant for grant in await services.db.grants.list()}
    cards = [
        EndpointCard(
            endpoint,
            key_state(services.keys, endpoint.key_name),
            sorted(m.alias for m in models if m.endpoint == endpoint.name and not m.retired),
            sum(1 for m in models if m.endpoint == endpoint.name and m.retired and not m.endpoint_gone),
            grants.get(endpoint.name),
            signed_in_with(services, grants.get(endpoint.name)),
            key_state(services.keys, endpoint.admin_key_name) if endpoint.hub else None,
        )
        for endpoint in endpoints
    ]
    return Connections(cards, endpoints)
