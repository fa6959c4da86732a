"""`/activity`: the gateway's figures hour by hour over the last day, as small charts.

A person opens it to see whether the gateway is busy, slow or failing,
and where the tokens and money went, without a Prometheus: panels and route
turns, seat time, seats by outcome, upstream errors, tokens and cost per
endpoint, verdicts recorded, route failovers. It draws what
`http/dashboard/activity.py` reads from the store (so a restart loses
nothing); static/activity.js fetches the page again every 10 seconds while
the tab is visible and swaps the charts in, so the drawing stays the
server's own.
"""

from __future__ import annotations

from datetime import UTC, datetime

from fastapi import APIRouter, Request
from starlette.responses import HTMLResponse

from panelgate.http.dashboard.activity import read_activity
from panelgate.http.services import services
from panelgate.web.activity_svg import draw, scale_words
from panelgate.web.frame import render

router = APIRouter(include_in_schema=False)


@router.get("/activity")
async def activity_page(request: Request) -> HTMLResponse:
    activity = await read_activity(services(request), datetime.now(UTC))
    drawings = [draw(chart, activity.hours) for chart in activity.charts]
    return await render(request, "activity", activity=activity, drawings=drawings, scale_words=scale_words)
