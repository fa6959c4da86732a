"""Recorded panels: the recent ones, and one with every seat's answer and its current verdict.

The dashboard's gateway card reads these; a person signed in to it judges a
seat through `POST /api/verdicts`, which records through the same desk as
`/bench/verdict`, so both refuse the same things alike.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any, Literal

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field
from starlette.responses import Response

from panelgate.core.caller_scope import CallerScope
from panelgate.core.errors import NotFound
from panelgate.core.types import SeatStatus
from panelgate.engine.verdict_desk import read_verdict, record_verdict
from panelgate.http.admin.shapes import plain
from panelgate.http.bench_schemas import VerdictBody
from panelgate.http.body import json_body, read_json_object
from panelgate.http.panel_route import caller_of
from panelgate.http.responses import json_response
from panelgate.http.services import services
from panelgate.store import SeatRecord, VerdictRecord

DASHBOARD_SOURCE = "dashboard"
"""The source of a verdict given on the dashboard (the Judge view, the Gateway card's seat dialog)."""

router = APIRouter()


class SkipShown(BaseModel):
    seat: Literal["member", "with", "merger", "explorer"]
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
    skipped: list[SkipShown] = Field(
        description="models named for the panel (or explorer candidates on a long prompt) not asked, and why"
    )
    prompt_preview: str = Field(description="at most 200 characters of the prompt's text")
    owes_verdicts: bool = Field(
        description="false: its seats are in no verdicts-owed list (a chat UI's background task, say)"
    )
    options: dict[str, Any] = Field(
        description="the call options its caller sent (temperature, max_tokens, stop…, under OpenAI chat "
        "names); each seat was sent them over its model's stored options, max tokens clamped to the model's"
    )


class PanelShown(PanelFields):
    seats: int = Field(description="how many seats it had")


class VerdictShown(BaseModel):
    useful: bool
    note: str
    real: list[str]
    false: list[str]
    at: datetime
    actor: str
    better_than: list[str] = Field(description="call ids of the panel's seats whose answers this one beat")


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
    served_as: str | None = Field(description="the model the reply named when not the one asked")
    attempts: int = Field(description="times asked (2: an empty answer cut at the token limit was retried)")
    verdict: VerdictShown | None = Field(description="the seat's current verdict; null when not judged")


class RecentPanel(PanelFields):
    seats: list[SeatShown]


class RecentPanels(BaseModel):
    panels: list[RecentPanel] = Field(description="the newest first")


class OnePanel(BaseModel):
    panel: PanelShown
    seats: list[SeatShown]


class VerdictRecorded(BaseModel):
    call: str
    useful: bool
    result: Literal["created", "superseded", "unchanged"]


def _judged(seats: Sequence[SeatRecord], verdicts: Mapping[str, VerdictRecord]) -> list[dict[str, Any]]:
    shown = []
    for seat in seats:
        verdict = verdicts.get(seat.call)
        fields = None if verdict is None else plain(verdict)
        if fields is not None:
            del fields["id"], fields["call"]
        shown.append({**plain(seat), "verdict": fields})
    return shown


@router.get("/panels", response_model=RecentPanels)
async def recent_panels(
    request: Request, limit: int = 20, collection: str | None = None, answers: bool = True, owed: bool = False
) -> Response:
    """`answers=false` leaves each seat's answer out (empty): what a page polling for news needs.
    `owed=true` keeps only panels with a seat still owed a verdict: the Judge view's to-do list."""
    db = services(request).db
    recent = await db.panels.recent(limit=max(1, min(limit, 200)), collection=collection, owed=owed)
    verdicts = await db.verdicts.current_of([seat.call for _, seats in recent for seat in seats])
    shown = []
    for panel, seats in recent:
        judged = _judged(seats, verdicts)
        if not answers:
            judged = [{**seat, "answer": ""} for seat in judged]
        shown.append({**plain(panel), "seats": judged})
    return json_response({"panels": shown})


@router.get("/panels/{panel_id}", response_model=OnePanel)
async def show_panel(request: Request, panel_id: str) -> Response:
    found = await services(request).db.panels.get(panel_id)
    if found is None:
        raise NotFound(f"no panel `{panel_id}` is recorded", param="panel")
    panel, seats = found
    verdicts = await services(request).db.verdicts.current_of([seat.call for seat in seats])
    return json_response({"panel": plain(panel), "seats": _judged(seats, verdicts)})


@router.post("/verdicts", response_model=VerdictRecorded, openapi_extra=json_body(VerdictBody))
async def judge_seat(request: Request) -> Response:
    """Record a verdict from the dashboard; fields left out keep the call's earlier note and claims.
    Its source is `dashboard` unless the body names another, so the Record page tells a person's
    verdicts from an agent's."""
    asked = read_verdict(await read_json_object(request, 1_000_000))
    if asked.source is None:
        asked = replace(asked, source=DASHBOARD_SOURCE)
    outcome = await record_verdict(services(request).db, CallerScope(name=caller_of(request)), asked)
    return json_response({"call": asked.call, "useful": asked.useful, "result": outcome})
