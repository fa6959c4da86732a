"""The OpenAI legacy completions API: `POST /v1/completions`.

It owns exactly that path (chat completions live under `/v1/chat/`), so a
refusal there reaches old OpenAI clients in the error shape they raise.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from panelgate.formats.completions import CompletionsApi
from panelgate.http.gateway_table import Api, GatewayRoute
from panelgate.http.panel_route import answer_panel

FORMAT = CompletionsApi()


async def completions(request: Request) -> Response:
    return await answer_panel(request, FORMAT)


API = Api(
    "OpenAI completions (legacy)",
    FORMAT,
    (
        GatewayRoute(
            "POST", "/v1/completions", completions, "a panel or route turn, OpenAI legacy completions"
        ),
    ),
)
