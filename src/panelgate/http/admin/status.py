"""`GET /api/status`: what this server is and what it holds."""

from __future__ import annotations

import platform
from datetime import UTC, datetime, time

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field
from sqlalchemy.engine import make_url
from starlette.responses import Response

from panelgate import __version__
from panelgate.http.responses import json_response
from panelgate.http.services import services
from panelgate.store.panel_counts import answers_owed, panels_since

router = APIRouter()


class Counts(BaseModel):
    endpoints: int
    models: int
    collections: int
    panels_today: int = Field(description="panels asked since midnight, UTC")
    answers_owed: int = Field(description="answers of panels that owe verdicts still without one")


class Status(BaseModel):
    version: str
    python: str
    data_dir: str
    database: str = Field(description="the database URL, password hidden")
    bind: str
    port: int
    counts: Counts


@router.get("/status", response_model=Status)
async def status(request: Request) -> Response:
    svc = services(request)
    db = svc.db
    midnight = datetime.combine(datetime.now(UTC).date(), time(), UTC)
    url = make_url(svc.settings.sqlalchemy_url)
    return json_response(
        {
            "version": __version__,
            "python": platform.python_version(),
            "data_dir": str(svc.settings.data_dir),
            "database": url.render_as_string(hide_password=True),
            "bind": svc.settings.bind,
            "port": svc.settings.port,
            "counts": {
                "endpoints": len(await db.endpoints.list()),
                "models": len(await db.models.list()),
                "collections": len(await db.collections.list()),
                "panels_today": await panels_since(db, midnight),
                "answers_owed": await answers_owed(db),
            },
        }
    )
