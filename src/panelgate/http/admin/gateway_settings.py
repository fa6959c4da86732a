"""Gateway settings: how many seats a panel has, how long a seat may take, which model decides shapes."""

from __future__ import annotations

from fastapi import APIRouter, Request
from pydantic import BaseModel
from starlette.responses import Response

from panelgate.core.types import GatewayLimits
from panelgate.http.admin.schemas import Body, left_out
from panelgate.http.admin.shapes import only_fields, plain
from panelgate.http.body import json_body, read_json_object
from panelgate.http.panel_route import caller_of
from panelgate.http.responses import json_response
from panelgate.http.services import services

router = APIRouter()


class LimitsChange(Body):
    """`PATCH /api/settings/gateway`: the settings given change (the store's ranges), the rest stay."""

    max_calls: int = left_out("seats a panel has at most", ge=1, le=10)
    max_explorers: int = left_out("explorer seats among them at most", ge=0, le=4)
    seat_deadline_s: float = left_out("seconds a seat may take", ge=1, le=3600)
    shadow_calls_per_day: int = left_out("route shadow calls a UTC day", ge=0, le=100_000)
    decision_model: str = left_out(
        "a bench model's alias, asked each panel's shape when explorers sit; empty: the rules decide",
        max_length=64,
    )
    retry_empty_length: bool = left_out("ask an empty answer cut at the token limit again, twice the budget")
    detect_quota_notices: bool = left_out("count a short 200 quota or credit notice as that failure")
    swap_alerts: bool = left_out("raise an action-needed item when a model keeps answering as another")
    skip_slow_on_long_prompts: bool = left_out(
        "on a long prompt, explorers the speed test found failing or far slower sit out"
    )


class Limits(BaseModel):
    max_calls: int
    max_explorers: int
    seat_deadline_s: float
    shadow_calls_per_day: int
    decision_model: str
    retry_empty_length: bool
    detect_quota_notices: bool
    swap_alerts: bool
    skip_slow_on_long_prompts: bool


class GatewaySettings(BaseModel):
    gateway: Limits


@router.get("/settings/gateway", response_model=GatewaySettings)
async def show(request: Request) -> Response:
    return json_response({"gateway": plain(await services(request).db.gateway.limits())})


@router.patch("/settings/gateway", response_model=GatewaySettings, openapi_extra=json_body(LimitsChange))
async def change(request: Request) -> Response:
    body = only_fields(await read_json_object(request, 1_000_000), set(GatewayLimits.__dataclass_fields__))
    limits = await services(request).db.gateway.update(body, actor=caller_of(request))
    return json_response({"gateway": plain(limits)})
