"""The OpenAI chat API: `POST /v1/chat/completions`, `GET /v1/models[/{id}]`.

Like every API it declares its routes and which paths it `owns` in `API`
(a row of `gateway_table`), so a refusal on those paths — even one raised
before a handler ran — comes back in this API's error shape.
"""

from __future__ import annotations

import time

from starlette.requests import Request
from starlette.responses import Response

from panelgate.core.errors import NotFound
from panelgate.engine.listing import list_collections
from panelgate.formats.openai_chat import OpenAIChatApi
from panelgate.http.gateway_table import Api, GatewayRoute
from panelgate.http.key_scope import allowed_collections
from panelgate.http.panel_route import answer_panel
from panelgate.http.responses import json_response
from panelgate.http.services import services

FORMAT = OpenAIChatApi()


async def chat_completions(request: Request) -> Response:
    return await answer_panel(request, FORMAT)


def _openai_model(entry: dict[str, object], created: int) -> dict[str, object]:
    return {"object": "model", "created": created, "owned_by": "panelgate", **entry}


async def list_models(request: Request) -> Response:
    created = int(time.time())
    entries = await list_collections(services(request).db, allowed_collections(request))
    return json_response({"object": "list", "data": [_openai_model(e, created) for e in entries]})


async def get_model(request: Request) -> Response:
    model_id: str = request.path_params["model_id"]
    entries = await list_collections(services(request).db, allowed_collections(request))
    wanted = model_id if model_id.startswith("bench/") else f"bench/{model_id}"
    for entry in entries:
        if entry["id"] == wanted:
            return json_response(_openai_model(entry, int(time.time())))
    listed = ", ".join(str(e["id"]) for e in entries if ":" not in str(e["id"])) or "none yet"
    raise NotFound(f"no model `{model_id}` here; collections: {listed}", param="model")


API = Api(
    "OpenAI chat completions",
    FORMAT,
    (
        GatewayRoute("POST", "/v1/chat/completions", chat_completions, "a panel or route turn, OpenAI chat"),
        GatewayRoute("GET", "/v1/models", list_models, "the collections, as OpenAI models"),
        GatewayRoute("GET", "/v1/models/{model_id:path}", get_model, "one collection, as an OpenAI model"),
    ),
    ("/v1/chat/", "/v1/models"),
)
