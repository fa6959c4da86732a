"""The Gemini API: `POST /v1beta/models/{model}:{method}`, `GET /v1beta/models[/{model}]`.

Google's SDKs put the model in the path and the method after its last colon,
and a collection's model id has a slash in it (`bench/core`, sent as is or
URL-encoded), so one path route takes the rest of the path and splits the
method off. It owns every path under `/v1beta/`, so any refusal there reaches
the SDK in Gemini's error shape. Counting tokens asks no model: it is the
size estimate seating uses, for a collection that exists.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from panelgate.core.errors import NotFound
from panelgate.core.types import ModelInfo
from panelgate.engine.listing import list_collections
from panelgate.formats.gemini import GeminiApi
from panelgate.formats.gemini.panel import METHODS
from panelgate.http.body import read_json_object
from panelgate.http.gateway_table import Api, GatewayRoute
from panelgate.http.key_scope import allowed_collections, caller_scope, visible_collections
from panelgate.http.panel_route import answer_panel, caller_of
from panelgate.http.responses import json_response
from panelgate.http.services import services

PREFIX = "/v1beta/"
_MODEL_PREFIX = "models/"

FORMAT = GeminiApi()


def _split_call(target: str) -> tuple[str, str]:
    """`bench/core:merged:generateContent` → (`bench/core:merged`, `generateContent`)."""
    model, colon, method = target.rpartition(":")
    if not colon or method not in METHODS:
        asked = f"`{method}`" if colon else "no method"
        raise NotFound(
            f"{asked} is not a method served here; use models/<model>:" + ", :".join(METHODS),
            param="method",
        )
    return model.removeprefix(_MODEL_PREFIX), method


async def model_method(request: Request) -> Response:
    model, method = _split_call(request.path_params["target"])
    sse = request.query_params.get("alt") == "sse"
    bound = FORMAT.for_call(model, streamed=method == "streamGenerateContent", sse=sse)
    if method == "countTokens":
        return await _count_tokens(request, bound)
    return await answer_panel(request, bound, model=model)


async def _count_tokens(request: Request, bound: GeminiApi) -> Response:
    svc = services(request)
    body = await read_json_object(request, svc.settings.max_body_bytes)
    asked = bound.decode_count(body, caller=caller_of(request))
    await svc.entry.admit(caller_scope(request), asked.collection)
    collections = await visible_collections(request)
    if asked.collection not in collections:
        offer = ", ".join(f"bench/{name}" for name in sorted(collections)) or "none yet"
        raise NotFound(f"no collection named `{bound.model}`. Collections: {offer}", param="model")
    return json_response(bound.count_tokens(asked))


def _output_limit(members: list[str], roster: Mapping[str, ModelInfo]) -> int | None:
    outputs = (roster[a].max_output for a in members if a in roster and not roster[a].retired)
    known = [n for n in outputs if n]
    return min(known) if known else None


def _gemini_model(entry: dict[str, Any], roster: Mapping[str, ModelInfo]) -> dict[str, Any]:
    members = list(entry["members"])
    description = entry["description"] or "a panelgate collection"
    model: dict[str, Any] = {
        "name": f"{_MODEL_PREFIX}{entry['id']}",
        "displayName": entry["id"],
        "description": f"{description} (reply: {entry['reply']}; members: {', '.join(members)})",
        "supportedGenerationMethods": list(METHODS),
    }
    window, output = entry["together"]["context_window"], _output_limit(members, roster)
    if window:
        model["inputTokenLimit"] = window
    if output:
        model["outputTokenLimit"] = output
    return model


async def _models(request: Request) -> list[dict[str, Any]]:
    db = services(request).db
    roster = (await db.bench.snapshot()).roster
    return [
        _gemini_model(entry, roster) for entry in await list_collections(db, allowed_collections(request))
    ]


async def list_models(request: Request) -> Response:
    return json_response({"models": await _models(request)})


async def get_model(request: Request) -> Response:
    target: str = request.path_params["target"]
    name = target.removeprefix(_MODEL_PREFIX)
    wanted = f"{_MODEL_PREFIX}{name if name.startswith('bench/') else f'bench/{name}'}"
    models = await _models(request)
    for model in models:
        if model["name"] == wanted:
            return json_response(model)
    listed = ", ".join(m["displayName"] for m in models if ":" not in m["displayName"]) or "none yet"
    raise NotFound(f"no model `{target}` here; collections: {listed}", param="model")


API = Api(
    "Gemini",
    FORMAT,
    (
        GatewayRoute("GET", "/v1beta/models", list_models, "the collections, as Gemini models"),
        GatewayRoute("GET", "/v1beta/models/{target:path}", get_model, "one collection, as a Gemini model"),
        GatewayRoute(
            "POST",
            "/v1beta/models/{target:path}",
            model_method,
            "generateContent, streamGenerateContent or countTokens on a collection",
        ),
    ),
    (PREFIX,),
)
