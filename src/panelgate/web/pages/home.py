"""`/`: the dashboard opens on Collections, where panels are asked about and judged."""

from __future__ import annotations

from fastapi import APIRouter
from starlette.responses import RedirectResponse

router = APIRouter(include_in_schema=False)


@router.get("/")
async def home() -> RedirectResponse:
    return RedirectResponse("/collections", status_code=307)
