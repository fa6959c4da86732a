"""The OpenAI legacy completions surface: `POST /v1/completions`.

It owns exactly that path (chat completions live under `/v1/chat/`), so a
refusal there reaches old OpenAI clients in the error shape they raise.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import Response

from panelgate.formats.completions import OpenAICompletions
from panelgate.formats.completions_route import CompletionsRoute
from panelgate.http.panel_route import answer_panel

router = APIRouter()
FORMAT = OpenAICompletions()
ROUTE = CompletionsRoute()


def owns(path: str) -> bool:
    return path == "/v1/completions"


@router.post("/v1/completions")
async def completions(request: Request) -> Response:
    return await answer_panel(request, FORMAT, ROUTE)
