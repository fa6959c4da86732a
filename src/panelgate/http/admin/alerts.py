"""Action needed: what will not fix itself, and dismissing an alert.

Alerts come from auto-retire: a connection whose models are all down (none
was retired), a key the endpoint refuses, payment asked for, a model
retired automatically in the last 7 days (with the alias a Restore puts
back: `POST /api/models/{alias}/restore`). A dismissed alert stays out of
the list while its cause lasts; if the cause goes and comes back, it is a
new alert.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field
from starlette.responses import Response

from panelgate.engine.action_needed import action_needed
from panelgate.http.admin.shapes import plain
from panelgate.http.panel_route import caller_of
from panelgate.http.responses import json_response
from panelgate.http.services import services
from panelgate.store.alerts import AlertKind, AlertRecord

router = APIRouter()


class AlertShown(BaseModel):
    id: int
    kind: AlertKind
    subject: str = Field(description="the endpoint or the model alias it is about")
    message: str
    restore: str | None = Field(description="the alias Restore puts back (a model retired automatically)")
    raised_at: datetime
    updated_at: datetime
    dismissed_at: datetime | None
    dismissed_by: str | None


class AlertList(BaseModel):
    alerts: list[AlertShown]


class OneAlert(BaseModel):
    alert: AlertShown


@router.get("/alerts", response_model=AlertList)
async def list_alerts(request: Request) -> Response:
    found = await action_needed(services(request).db, datetime.now(UTC))
    return json_response({"alerts": [_alert(a) for a in found]})


@router.post("/alerts/{alert_id}/dismiss", response_model=OneAlert)
async def dismiss(request: Request, alert_id: int) -> Response:
    found = await services(request).db.alerts.dismiss(alert_id, caller_of(request), datetime.now(UTC))
    return json_response({"alert": _alert(found)})


def _alert(alert: AlertRecord) -> dict[str, Any]:
    shown: dict[str, Any] = plain(alert)
    for hidden in ("key", "cleared_at"):
        shown.pop(hidden, None)
    return shown
