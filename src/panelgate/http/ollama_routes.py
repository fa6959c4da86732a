"""The Ollama API: `/api/chat`, `/api/generate`, `/api/tags`, `/api/ps`, `/api/version`, `/api/show`.

`/api/` is also the admin API's prefix, so this API `owns` exactly these
six paths: a refusal on them comes back as `{"error": "..."}` (what the
Ollama clients raise), while every other `/api/...` path keeps the admin
shape. The listing routes describe collections as Ollama describes local
models, so a client that only lets a person pick a listed model (Open WebUI)
can pick a collection in any reply mode; `/api/ps` (which models are loaded,
polled by Open WebUI) lists every collection as loaded, since a panel has
nothing to load. Like Ollama, the writes read a body sent without a JSON type.
"""

from __future__ import annotations

import hashlib
import time
from datetime import UTC, datetime, timedelta
from typing import Any

import orjson
from starlette.requests import Request
from starlette.responses import Response

from panelgate.core.errors import BadRequest, NotFound
from panelgate.engine.listing import list_collections
from panelgate.formats.ollama import OllamaChatApi, OllamaGenerateApi
from panelgate.formats.ollama.panel import model_name
from panelgate.http.body import read_json_object
from panelgate.http.gateway_table import Api, GatewayRoute
from panelgate.http.key_scope import allowed_collections
from panelgate.http.panel_route import answer_panel
from panelgate.http.responses import json_response
from panelgate.http.services import services

OLLAMA_VERSION = "0.12.0"
"""The Ollama version this surface answers as; clients check it for features."""
LOADED_FOR = timedelta(hours=24)
"""How far ahead `/api/ps` says a collection stays loaded: it never unloads, and clients count down."""

FORMAT = OllamaChatApi()


async def chat(request: Request) -> Response:
    chat = OllamaChatApi(began=time.monotonic())  # one per request: a turn's durations start now
    return await answer_panel(request, chat, model_name=model_name, untyped=True)


async def generate(request: Request) -> Response:
    generate_api = OllamaGenerateApi(began=time.monotonic())
    return await answer_panel(request, generate_api, model_name=model_name, untyped=True)


async def version(request: Request) -> Response:
    return json_response({"version": OLLAMA_VERSION})


def _now() -> str:
    return _stamp(datetime.now(UTC))


def _stamp(at: datetime) -> str:
    return at.isoformat(timespec="seconds").replace("+00:00", "Z")


def _details(entry: dict[str, Any]) -> dict[str, Any]:
    return {
        "parent_model": "",
        "format": "panel",
        "family": "bench",
        "families": list(entry["members"]),
        "parameter_size": f"{len(entry['members'])} members",
        "quantization_level": "",
    }


def _tag(entry: dict[str, Any], modified_at: str) -> dict[str, Any]:
    """A collection in one reply mode, as `/api/tags` lists a local model; the digest
    changes when the collection does."""
    digest = hashlib.sha256(orjson.dumps(entry, option=orjson.OPT_SORT_KEYS)).hexdigest()
    return {
        "name": entry["id"],
        "model": entry["id"],
        "modified_at": modified_at,
        "size": 0,
        "digest": digest,
        "details": _details(entry),
    }


async def tags(request: Request) -> Response:
    modified_at = _now()
    entries = await list_collections(services(request).db, allowed_collections(request))
    return json_response({"models": [_tag(entry, modified_at) for entry in entries]})


def _running(entry: dict[str, Any], now: datetime) -> dict[str, Any]:
    """A collection as `/api/ps` lists a loaded model: in no memory of ours, and never unloading."""
    running = {**_tag(entry, _stamp(now)), "expires_at": _stamp(now + LOADED_FOR), "size_vram": 0}
    del running["modified_at"]
    if entry["together"]["context_window"]:
        running["context_length"] = entry["together"]["context_window"]
    return running


async def running_models(request: Request) -> Response:
    """Ollama's loaded models: every collection the caller may ask, as `/api/tags` lists them."""
    now = datetime.now(UTC)
    entries = await list_collections(services(request).db, allowed_collections(request))
    return json_response({"models": [_running(entry, now) for entry in entries]})


def _modelfile(entry: dict[str, Any]) -> str:
    lines = [f"# {entry['id']}: a panelgate collection, answered by a panel of its members"]
    if entry["description"]:
        lines.append(f"# {entry['description']}")
    lines += [
        f"# members: {', '.join(entry['members'])}",
        f"# reply: {entry['reply']}",
        f"FROM {entry['id']}",
    ]
    return "\n".join(lines) + "\n"


def _show(entry: dict[str, Any]) -> dict[str, Any]:
    together = entry["together"]
    model_info: dict[str, Any] = {"general.architecture": "bench", "general.basename": entry["id"]}
    if together["context_window"]:
        model_info["bench.context_length"] = together["context_window"]
    capabilities = ["completion"] + (["vision"] if "vision" in together["capabilities"] else [])
    return {
        "modelfile": _modelfile(entry),
        "parameters": "",
        "template": "{{ .Prompt }}",
        "license": "",
        "details": _details(entry),
        "model_info": model_info,
        "capabilities": capabilities,
        "modified_at": _now(),
    }


async def show(request: Request) -> Response:
    body = await read_json_object(request, services(request).settings.max_body_bytes, untyped=True)
    asked = body.get("model") or body.get("name")
    if not isinstance(asked, str) or not asked.strip():
        raise BadRequest('name the model to show, e.g. {"model": "bench/<collection>"}', param="model")
    name = model_name(asked)
    wanted = name if name.startswith("bench/") else f"bench/{name}"
    entries = await list_collections(services(request).db, allowed_collections(request))
    for entry in entries:
        if entry["id"] == wanted:
            return json_response(_show(entry))
    listed = ", ".join(str(e["id"]) for e in entries if ":" not in str(e["id"])) or "none yet"
    raise NotFound(f"no model `{asked}` here; collections: {listed}", param="model")


API = Api(
    "Ollama",
    FORMAT,
    (
        GatewayRoute("POST", "/api/chat", chat, "a panel or route turn, Ollama chat", untyped=True),
        GatewayRoute(
            "POST", "/api/generate", generate, "a panel or route turn, Ollama generate", untyped=True
        ),
        GatewayRoute("GET", "/api/tags", tags, "the collections, as local models"),
        GatewayRoute("GET", "/api/ps", running_models, "the collections, as loaded models"),
        GatewayRoute("GET", "/api/version", version, "the Ollama version answered as"),
        GatewayRoute("POST", "/api/show", show, "one collection, as a local model", untyped=True),
    ),
)
