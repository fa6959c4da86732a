"""`GET /api/audit`: the change log (who changed what, never a secret)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fastapi import APIRouter, Request
from pydantic import BaseModel
from starlette.responses import Response

from panelgate.http.admin.shapes import plain
from panelgate.http.responses import json_response
from panelgate.http.services import services

router = APIRouter()


class Change(BaseModel):
    id: int
    at: datetime
    actor: str
    entity: str
    key: str
    action: str
    before: dict[str, Any] | None
    after: dict[str, Any] | None


class Changes(BaseModel):
    changes: list[Change]


@router.get("/audit", response_model=Changes)
async def audit_log(request: Request, limit: int = 100, entity: str | None = None) -> Response:
    rows = await services(request).db.audit.list(limit=max(1, min(limit, 1000)), entity=entity)
    return json_response({"changes": plain(rows)})
