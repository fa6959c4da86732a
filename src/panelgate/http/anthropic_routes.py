"""The Anthropic Messages API: `POST /v1/messages`, `POST /v1/messages/count_tokens`.

It owns every path under `/v1/messages`, so a refusal there — an unknown
collection, a body that is not JSON — reaches the Anthropic SDK in the error
shape it raises. Counting tokens asks no model: it is the size estimate
seating uses, for a collection that exists.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from panelgate.core.errors import BadRequest, NotFound
from panelgate.formats.anthropic import AnthropicApi
from panelgate.http.body import read_json_object
from panelgate.http.gateway_table import Api, GatewayRoute
from panelgate.http.key_scope import caller_scope, visible_collections
from panelgate.http.panel_route import answer_panel, caller_of
from panelgate.http.responses import json_response
from panelgate.http.services import services

FORMAT = AnthropicApi()


async def messages(request: Request) -> Response:
    return await answer_panel(request, FORMAT)


async def count_tokens(request: Request) -> Response:
    svc = services(request)
    asked = FORMAT.decode(
        await read_json_object(request, svc.settings.max_body_bytes), caller=caller_of(request)
    )
    await svc.entry.admit(caller_scope(request), asked.collection)
    collections = await visible_collections(request)
    if asked.collection not in collections:
        offer = ", ".join(f"bench/{name}" for name in sorted(collections)) or "none yet"
        if asked.collection is None:
            raise BadRequest(
                f"name a collection as the model, e.g. bench/<name>. Collections: {offer}", param="model"
            )
        raise NotFound(f"no collection named `{asked.collection}`. Collections: {offer}", param="model")
    return json_response(FORMAT.count_tokens(asked))


API = Api(
    "Anthropic Messages",
    FORMAT,
    (
        GatewayRoute("POST", "/v1/messages", messages, "a panel or route turn, Anthropic Messages"),
        GatewayRoute("POST", "/v1/messages/count_tokens", count_tokens, "the size estimate seating uses"),
    ),
    ("/v1/messages",),
)
