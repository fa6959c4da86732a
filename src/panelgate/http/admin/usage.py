"""`GET /api/usage`: the usage ledger, summed per connection and model, and its newest rows.

What was sent in the last 24 hours and this calendar month (UTC), per
model on each connection: calls, requests (retries included), failures and
tokens. The Quotas page and `panelgate usage` read this.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field
from starlette.responses import Response

from panelgate.http.admin.shapes import plain
from panelgate.http.responses import json_response
from panelgate.http.services import services

router = APIRouter()


class Total(BaseModel):
    endpoint: str
    alias: str
    calls: int
    attempts: int = Field(description="requests sent, retries included")
    failed: int
    tokens_in: int
    tokens_out: int


class Entry(BaseModel):
    at: datetime
    endpoint: str
    served_id: str
    alias: str
    caller: str
    purpose: str = Field(description="panel, merge, route, shadow, probe, suite or onboard")
    call: str | None
    status: str
    error_kind: str | None
    attempts: int
    tokens_in: int | None
    tokens_out: int | None
    tokens_reasoning: int | None
    seconds: float


class Usage(BaseModel):
    day: list[Total] = Field(description="the last 24 hours")
    month: list[Total] = Field(description="this calendar month, UTC")
    recent: list[Entry] = Field(description="the newest calls first")


@router.get("/usage", response_model=Usage)
async def usage(request: Request, limit: int = 100) -> Response:
    book = services(request).db.usage
    now = datetime.now(UTC)
    month_start = now.replace(day=1, hour=0, minute=0, second=0, microsecond=0)
    return json_response(
        {
            "day": plain(await book.totals(now - timedelta(days=1))),
            "month": plain(await book.totals(month_start)),
            "recent": plain(await book.recent(max(1, min(limit, 1000)))),
        }
    )
