"""The OpenAI Responses surface: `POST /v1/responses`.

It owns every path under `/v1/responses`, so a refusal there — an unknown
collection, a body that is not JSON, asking to fetch a stored response —
reaches the OpenAI SDK in the Responses error shape it raises.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import Response

from panelgate.core.errors import NotFound
from panelgate.formats.responses import OpenAIResponses
from panelgate.formats.responses_route import ResponsesRoute
from panelgate.http.panel_route import answer_panel

router = APIRouter()
FORMAT = OpenAIResponses()
ROUTE = ResponsesRoute()


def owns(path: str) -> bool:
    return path == "/v1/responses" or path.startswith("/v1/responses/")


@router.post("/v1/responses")
async def create_response(request: Request) -> Response:
    return await answer_panel(request, FORMAT, ROUTE)


@router.get("/v1/responses/{response_id}")
async def retrieve_response(response_id: str) -> Response:
    raise NotFound(
        f"no stored response `{response_id}`: nothing is stored here (every reply says store: false); "
        "keep the reply you were given",
        param="response_id",
    )
