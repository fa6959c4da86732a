"""The OpenAI chat surface: `POST /v1/chat/completions`, `GET /v1/models[/{id}]`.

Like every API surface it names its `FORMAT` and which paths it `owns`, so a
refusal on those paths — even one raised before a handler ran — comes back in
this API's error shape.
"""

from __future__ import annotations

import time

from fastapi import APIRouter, Request
from starlette.responses import Response

from panelgate.core.errors import NotFound
from panelgate.engine.listing import list_collections
from panelgate.formats.openai_chat import OpenAIChat
from panelgate.formats.openai_chat_route import OpenAIChatRoute
from panelgate.http.key_scope import allowed_collections
from panelgate.http.panel_route import answer_panel
from panelgate.http.responses import json_response
from panelgate.http.services import services

router = APIRouter()
FORMAT = OpenAIChat()
ROUTE = OpenAIChatRoute()


def owns(path: str) -> bool:
    return path.startswith(("/v1/chat/", "/v1/models"))


@router.post("/v1/chat/completions")
async def chat_completions(request: Request) -> Response:
    return await answer_panel(request, FORMAT, ROUTE)


def _openai_model(entry: dict[str, object], created: int) -> dict[str, object]:
    return {"object": "model", "created": created, "owned_by": "panelgate", **entry}


@router.get("/v1/models")
async def list_models(request: Request) -> Response:
    created = int(time.time())
    entries = await list_collections(services(request).db, allowed_collections(request))
    return json_response({"object": "list", "data": [_openai_model(e, created) for e in entries]})


@router.get("/v1/models/{model_id:path}")
async def get_model(request: Request, model_id: str) -> Response:
    entries = await list_collections(services(request).db, allowed_collections(request))
    wanted = model_id if model_id.startswith("bench/") else f"bench/{model_id}"
    for entry in entries:
        if entry["id"] == wanted:
            return json_response(_openai_model(entry, int(time.time())))
    listed = ", ".join(str(e["id"]) for e in entries if ":" not in str(e["id"])) or "none yet"
    raise NotFound(f"no model `{model_id}` here; collections: {listed}", param="model")
