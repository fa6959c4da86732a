"""Rate limits: rules set by hand per connection or model, and what providers last stated.

`GET /api/limits` is what the Quotas page and `panelgate limits` read: each
rule with what was spent under it in the current window, and each model's
stated limits with their resets. Rules are set and removed here; the
gateway paces every upstream call by them (see `upstream/pacing.py`).
"""

from __future__ import annotations

from datetime import UTC, datetime

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field
from starlette.responses import Response

from panelgate.core.rate_windows import MeasureRule, Window, period_end, period_of
from panelgate.http.admin.schemas import Body
from panelgate.http.admin.shapes import only_fields, plain, text_field
from panelgate.http.body import json_body, read_json_object
from panelgate.http.panel_route import caller_of
from panelgate.http.responses import json_response
from panelgate.http.services import services

router = APIRouter()


class RuleBody(Body):
    """`POST /api/limits`: at most `most` requests or tokens a minute, day or month, on a connection
    (no `served_id`) or one model it serves; replaces the rule for the same scope, measure and window."""

    endpoint: str
    served_id: str | None = Field(default=None, description="the model as its endpoint names it")
    measure: MeasureRule
    window: Window
    most: int = Field(ge=1)


class RuleShown(BaseModel):
    id: int
    endpoint: str
    served_id: str | None
    measure: MeasureRule
    window: Window
    most: int
    used: int = Field(description="spent under the rule in the current window")
    resets_at: datetime = Field(description="when the current window ends")


class StatedShown(BaseModel):
    endpoint: str
    served_id: str
    measure: str
    most: int | None
    remaining: int | None
    resets_at: datetime | None
    retry_at: datetime | None
    quota: str
    style: str
    updated_at: datetime


class Limits(BaseModel):
    rules: list[RuleShown]
    stated: list[StatedShown]


@router.get("/limits", response_model=Limits)
async def show_limits(request: Request) -> Response:
    rates = services(request).db.rates
    now = datetime.now(UTC)
    rules = await rates.rules()
    periods = {rule.id: period_of(rule.window, now) for rule in rules}
    used = await rates.used(list(periods), sorted(set(periods.values())))
    shown = [
        {
            **plain(rule),
            "used": used.get((rule.id, periods[rule.id]), 0),
            "resets_at": period_end(rule.window, periods[rule.id]).isoformat(),
        }
        for rule in rules
    ]
    return json_response({"rules": shown, "stated": plain(await rates.stated())})


@router.post("/limits", status_code=201, response_model=RuleShown, openapi_extra=json_body(RuleBody))
async def set_rule(request: Request) -> Response:
    body = only_fields(await read_json_object(request, 100_000), set(RuleBody.model_fields))
    served = body.get("served_id")
    rule = await services(request).db.rates.set_rule(
        str(text_field(body, "endpoint")),
        served if isinstance(served, str) else None,
        body.get("measure", ""),
        body.get("window", ""),
        body.get("most", 0),
        actor=caller_of(request),
    )
    period = period_of(rule.window, datetime.now(UTC))
    fields = {**plain(rule), "used": 0, "resets_at": period_end(rule.window, period).isoformat()}
    return json_response(fields, 201)


@router.delete("/limits/{rule_id}", status_code=204)
async def delete_rule(request: Request, rule_id: int) -> Response:
    await services(request).db.rates.delete_rule(rule_id, actor=caller_of(request))
    return Response(status_code=204)
