"""Recorded panels: the recent ones, and one with every seat's answer."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field
from starlette.responses import Response

from panelgate.core.errors import NotFound
from panelgate.core.types import SeatStatus
from panelgate.http.admin.shapes import plain
from panelgate.http.responses import json_response
from panelgate.http.services import services

router = APIRouter()


class SkipShown(BaseModel):
    seat: Literal["member", "with", "merger"]
    alias: str
    why: str


class PanelFields(BaseModel):
    id: str
    collection: str
    at: datetime
    shape: str
    shape_by: str
    reply: Literal["all", "merged"]
    caller: str
    note: str
    skipped: list[SkipShown] = Field(description="models named for the panel but not asked, and why")
    prompt_preview: str = Field(description="at most 200 characters of the prompt's text")


class PanelShown(PanelFields):
    seats: int = Field(description="how many seats it had")


class SeatShown(BaseModel):
    call: str = Field(description="the call id a verdict names")
    panel: str
    position: int
    label: str
    kind: Literal["member", "explorer", "merger"]
    alias: str = Field(description="the model's alias then")
    status: SeatStatus
    seconds: float
    answer: str
    error: str
    tokens_in: int | None
    tokens_out: int | None
    model_id: int | None


class RecentPanel(PanelFields):
    seats: list[SeatShown]


class RecentPanels(BaseModel):
    panels: list[RecentPanel] = Field(description="the newest first")


class OnePanel(BaseModel):
    panel: PanelShown
    seats: list[SeatShown]


@router.get("/panels", response_model=RecentPanels)
async def recent_panels(request: Request, limit: int = 20, collection: str | None = None) -> Response:
    recent = await services(request).db.panels.recent(limit=max(1, min(limit, 200)), collection=collection)
    return json_response({"panels": [{**plain(panel), "seats": plain(seats)} for panel, seats in recent]})


@router.get("/panels/{panel_id}", response_model=OnePanel)
async def show_panel(request: Request, panel_id: str) -> Response:
    found = await services(request).db.panels.get(panel_id)
    if found is None:
        raise NotFound(f"no panel `{panel_id}` is recorded", param="panel")
    panel, seats = found
    return json_response({"panel": plain(panel), "seats": plain(seats)})
