"""Endpoints: each endpoint with its key state and models, and what it serves that is not on the bench.

Adding, changing a key, removing and making default go through
`/api/endpoints`; "What it serves" asks `/api/endpoints/{name}/served` when
clicked (a listing is a call to the provider, so never on page load). A key
is shown only as where it is kept (`http/dashboard/endpoints.py` reads it);
the key field is always empty. Connect (`static/connect.js`) signs in to a
provider through `/api/connect/*` and, once connected, reads this page again
to put the new card in place; a signed-in endpoint's card says how its token
stands (from its sign-in record, which holds no token).
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import HTMLResponse

from panelgate.core.types import ROLES
from panelgate.http.dashboard.endpoints import read_connections
from panelgate.http.services import services
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


@router.get("/endpoints")
async def endpoints_page(request: Request) -> HTMLResponse:
    found = await read_connections(services(request))
    return await render(
        request,
        "endpoints",
        cards=found.cards,
        endpoints=found.endpoints,
        kinds=KINDS,
        apis=APIS,
        roles=ROLES,
    )
