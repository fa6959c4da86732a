"""Models: the roster grouped by the endpoint each model is reached through, and its dialogs.

Putting a model on the bench, renaming it, its role and facts, retiring and
restoring all go through `/api/models`; the page only reads, through
`http/dashboard/models.py`. Each model's health chip is its status as
`GET /api/health` gives it. Retired models are listed too (hidden until
"Show retired" is ticked), under the endpoint they were on, or under
"Removed endpoints" when that endpoint is gone.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import HTMLResponse

from panelgate.core.types import ROLES
from panelgate.http.dashboard.models import model_fill, read_roster
from panelgate.http.services import services
from panelgate.web.frame import render

router = APIRouter(include_in_schema=False)


@router.get("/models")
async def models_page(request: Request) -> HTMLResponse:
    roster = await read_roster(services(request))
    return await render(
        request,
        "models",
        groups=roster.groups,
        endpoints=roster.endpoints,
        roles=ROLES,
        retired_count=roster.retired_count,
        model_fill=model_fill,
        health=roster.health,
        served_as=roster.served_as,
    )
