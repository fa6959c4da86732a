"""`GET /health`: is this process up and its database reachable."""

from __future__ import annotations

from fastapi import APIRouter, Request
from sqlalchemy import text
from starlette.responses import Response

from panelgate.http.responses import json_response
from panelgate.http.services import services

router = APIRouter()


@router.get("/health")
async def health(request: Request) -> Response:
    db = services(request).db
    try:
        async with db.engine.connect() as conn:
            await conn.execute(text("SELECT 1"))
    except Exception:
        return json_response({"ok": False, "database": "unreachable"}, 503)
    return json_response({"ok": True})
