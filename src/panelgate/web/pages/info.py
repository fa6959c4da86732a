"""Info: what this server is (version, Python, data folder, database) and what it holds."""

from __future__ import annotations

import platform

from fastapi import APIRouter, Request
from sqlalchemy.engine import make_url
from starlette.responses import HTMLResponse

from panelgate.web.frame import render

router = APIRouter(include_in_schema=False)


@router.get("/info")
async def info(request: Request) -> HTMLResponse:
    services = request.app.state.services
    db, settings = services.db, services.settings
    bench = await db.bench.snapshot()
    counts = (
        ("Endpoints", len(bench.endpoints)),
        ("Models on the bench", sum(1 for m in bench.roster.values() if not m.retired)),
        ("Retired models", sum(1 for m in bench.roster.values() if m.retired)),
        ("Collections", len(bench.collections)),
        ("Gateway keys", len([k for k in await db.keys.list() if not k.revoked])),
    )
    return await render(
        request,
        "info",
        python=platform.python_version(),
        data_dir=str(settings.data_dir),
        database=make_url(settings.sqlalchemy_url).render_as_string(hide_password=True),
        workers=settings.workers,
        counts=counts,
    )
