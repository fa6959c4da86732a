"""Logs: the gateway's recent requests (panels and route turns, never a prompt) and the change log."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from fastapi import APIRouter, Request
from starlette.responses import HTMLResponse

from panelgate.web.frame import render

router = APIRouter(include_in_schema=False)
SHOWN = 100


@dataclass(frozen=True)
class RequestLine:
    at: datetime
    kind: str
    collection: str
    caller: str
    outcome: str


@router.get("/logs")
async def logs(request: Request) -> HTMLResponse:
    db = request.app.state.services.db
    lines = [
        RequestLine(
            panel.at,
            "panel",
            f"bench/{panel.collection}",
            panel.caller,
            f"{sum(s.status == 'ok' for s in seats)} of {len(seats)} seats answered",
        )
        for panel, seats in await db.panels.recent(limit=SHOWN)
    ]
    lines += [
        RequestLine(
            turn.at,
            "route shadow" if turn.purpose == "shadow" else "route turn",
            f"bench/{turn.collection}",
            turn.caller,
            f"{turn.alias}: {turn.status}" + (f" after {len(turn.tried)} failovers" if turn.tried else ""),
        )
        for turn in await db.routes.recent_turns(limit=SHOWN)
    ]
    lines.sort(key=lambda line: line.at, reverse=True)
    changes = await db.audit.list(limit=SHOWN)
    return await render(request, "logs", requests=lines[:SHOWN], changes=changes)
