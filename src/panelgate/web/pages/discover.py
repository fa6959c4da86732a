"""`/discover`: models the public catalogs list, free and new first, each with its reach and an Add button.

With no filter it shows what a person could use today or for nothing: every
free model, and paid ones on providers they already reach; "Paid models on
other providers too" shows the rest. Filters are a plain GET form, so a view
can be bookmarked. The rows come from the store (`http/dashboard/discover.py`),
so the page works offline and calls no provider on load unless "Ask my
endpoints" is ticked. Add goes through `POST /api/discover/add`;
static/discover.js then follows the queued model in the onboarding queue.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Request
from starlette.responses import HTMLResponse

from panelgate.http.dashboard.discover import DiscoverQuery, discover_query, read_discover
from panelgate.http.services import services
from panelgate.web.frame import render

router = APIRouter(include_in_schema=False)
SHOWN = 300


@router.get("/discover")
async def discover_page(
    request: Request, query: Annotated[DiscoverQuery, Depends(discover_query)]
) -> HTMLResponse:
    view = await read_discover(services(request), query, SHOWN)
    return await render(request, "discover", view=view, asked=query)
