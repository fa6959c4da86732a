"""Recorded panels: the recent ones, and one with every seat's answer."""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import Response

from panelgate.core.errors import NotFound
from panelgate.http.admin.shapes import plain
from panelgate.http.responses import json_response
from panelgate.http.services import services

router = APIRouter()


@router.get("/panels")
async def recent_panels(request: Request, limit: int = 20, collection: str | None = None) -> Response:
    recent = await services(request).db.panels.recent(limit=max(1, min(limit, 200)), collection=collection)
    return json_response({"panels": [{**plain(panel), "seats": plain(seats)} for panel, seats in recent]})


@router.get("/panels/{panel_id}")
async def show_panel(request: Request, panel_id: str) -> Response:
    found = await services(request).db.panels.get(panel_id)
    if found is None:
        raise NotFound(f"no panel `{panel_id}` is recorded", param="panel")
    panel, seats = found
    return json_response({"panel": plain(panel), "seats": plain(seats)})
