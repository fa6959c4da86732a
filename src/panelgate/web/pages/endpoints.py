"""Endpoints: each endpoint with its key state and models, and what it serves that is not on the bench.

Adding, changing a key, removing and making default go through
`/api/endpoints`; "What it serves" asks `/api/endpoints/{name}/served` when
clicked (a listing is a call to the provider, so never on page load). A key
is shown only as where it is kept; the key field is always empty.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter, Request
from starlette.responses import HTMLResponse

from panelgate.core.types import ROLES
from panelgate.store.records import EndpointRecord
from panelgate.upstream.keys import KeyFileError, KeyStore, env_name
from panelgate.web.frame import render

router = APIRouter(include_in_schema=False)
KINDS = (
    ("provider", "provider: serves its own models"),
    ("aggregator", "aggregator: many providers' models, e.g. OpenRouter"),
    ("hub", "hub: a gateway of your own, e.g. Open WebUI or LiteLLM"),
    ("local", "local runtime, e.g. Ollama or llama.cpp"),
)
APIS = (
    ("chat", "OpenAI chat completions (most endpoints)"),
    ("anthropic", "Anthropic messages"),
    ("gemini", "Gemini generateContent"),
    ("responses", "OpenAI responses"),
)


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


@router.get("/endpoints")
async def endpoints_page(request: Request) -> HTMLResponse:
    services = request.app.state.services
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
    return await render(
        request, "endpoints", cards=cards, endpoints=endpoints, kinds=KINDS, apis=APIS, roles=ROLES
    )
