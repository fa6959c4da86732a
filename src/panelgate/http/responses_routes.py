"""The OpenAI Responses API: `POST /v1/responses`.

It owns every path under `/v1/responses`, so a refusal there — an unknown
collection, a body that is not JSON, asking to fetch a stored response —
reaches the OpenAI SDK in the Responses error shape it raises.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from panelgate.core.errors import NotFound
from panelgate.formats.responses import ResponsesApi
from panelgate.http.gateway_table import Api, GatewayRoute
from panelgate.http.panel_route import answer_panel

FORMAT = ResponsesApi()


async def create_response(request: Request) -> Response:
    return await answer_panel(request, FORMAT)


async def retrieve_response(request: Request) -> Response:
    response_id: str = request.path_params["response_id"]
    raise NotFound(
        f"no stored response `{response_id}`: nothing is stored here (every reply says store: false); "
        "keep the reply you were given",
        param="response_id",
    )


API = Api(
    "OpenAI Responses",
    FORMAT,
    (
        GatewayRoute("POST", "/v1/responses", create_response, "a panel or route turn, OpenAI Responses"),
        GatewayRoute("GET", "/v1/responses/{response_id}", retrieve_response, "nothing is stored: a 404"),
    ),
    ("/v1/responses/",),
)
