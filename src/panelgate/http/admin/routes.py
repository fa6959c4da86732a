"""Route conversations on the record: one conversation with every turn (never the prompt)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import Response

from panelgate.core.errors import NotFound
from panelgate.http.admin.shapes import plain
from panelgate.http.responses import json_response
from panelgate.http.services import services

router = APIRouter()


@router.get("/routes/{conversation}")
async def show_conversation(request: Request, conversation: str) -> Response:
    db = services(request).db
    found = await db.routes.by_id(conversation)
    turns = await db.routes.turns(conversation)
    if found is None and not turns:
        raise NotFound(f"no route conversation `{conversation}` is recorded", param="conversation")
    return json_response({"conversation": None if found is None else plain(found), "turns": plain(turns)})
