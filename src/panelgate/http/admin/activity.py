"""`GET /api/activity`: the gateway's figures hour by hour over the last day, as the Activity page draws them.

Read from the store (`http/dashboard/activity.py`), so it survives restarts
and is the same on every replica; `/metrics` has the live counters.
"""

from __future__ import annotations

from datetime import UTC, datetime

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field
from starlette.responses import Response

from panelgate.http.admin.shapes import plain
from panelgate.http.dashboard.activity import read_activity
from panelgate.http.responses import json_response
from panelgate.http.services import services

router = APIRouter()


class Series(BaseModel):
    name: str
    values: list[float | None] = Field(description="one per hour, oldest first; null: nothing to measure")


class Chart(BaseModel):
    slug: str
    title: str
    unit: str = Field(description="what a value counts: requests, seconds, seats, tokens, US dollars…")
    series: list[Series]
    stacked: bool = Field(description="counts that add up (bars); false for times (lines)")
    note: str
    nothing: str = Field(description="what the chart says when the day has nothing to draw")


class Activity(BaseModel):
    hours: list[datetime] = Field(description="each hour's start (UTC), oldest first; the last is now's")
    charts: list[Chart]
    not_stored: str = Field(description="what the store does not keep, so only /metrics counts")


@router.get("/activity", response_model=Activity)
async def activity(request: Request) -> Response:
    return json_response(plain(await read_activity(services(request), datetime.now(UTC))))
