"""Health per model: its status and why, its last call and answer, its newest probes; probe one now.

`GET /api/health` reads every model's status from the evidence (the same
rules auto-retire acts on). `POST /api/health/{alias}/probe` sends the
one-word probe now: a person asked, so it goes in any scheduler mode.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field
from starlette.responses import Response

from panelgate.core.errors import NotFound
from panelgate.core.health import HealthStatus
from panelgate.engine.health import ModelHealth
from panelgate.http.admin.shapes import plain
from panelgate.http.panel_route import caller_of
from panelgate.http.responses import json_response
from panelgate.http.services import services
from panelgate.store.errors import Conflict
from panelgate.store.health_book import ProbeRecord

router = APIRouter()


class ProbeShown(BaseModel):
    id: int | None
    at: datetime
    alias: str
    endpoint: str
    served_id: str
    probe: str = Field(description="ready, confirm, speed-tiny, speed-large, tools or reasoning")
    status: str = Field(description="ok, empty, error, or refused (not sent: a rate limit)")
    error_kind: str | None
    error: str
    seconds: float
    measures: dict[str, Any] = Field(
        description="speed: runs, answered, p50_s, p95_s, chars_per_s, tokens_per_s; tools: called; "
        "reasoning: correct, reasoned"
    )
    caller: str


class HealthShown(BaseModel):
    alias: str
    endpoint: str
    served_id: str
    status: HealthStatus
    label: str = Field(description="the status as a person reads it: `retiring in 2 days`")
    why: str
    retires_in_days: int | None
    last_answer_at: datetime | None
    last_call_at: datetime | None
    probes: list[ProbeShown] = Field(description="its newest probe of each kind")


class HealthList(BaseModel):
    models: list[HealthShown]


class OneHealth(BaseModel):
    model: HealthShown
    recent: list[ProbeShown] = Field(description="its newest probes, the newest first")


class Probed(BaseModel):
    probe: ProbeShown
    model: HealthShown


@router.get("/health", response_model=HealthList)
async def health_list(request: Request) -> Response:
    found = await services(request).health.report()
    return json_response({"models": [_health(h) for h in found]})


@router.get("/health/{alias}", response_model=OneHealth)
async def health_of_model(request: Request, alias: str) -> Response:
    svc = services(request)
    found = await svc.health.report(alias)
    model = await svc.db.models.get(alias)
    if not found or model is None:
        raise NotFound(f"no model `{alias}` on the bench or among retired models", param="alias")
    recent = await svc.db.health.recent_probes(model.id)
    return json_response({"model": _health(found[0]), "recent": [_probe(p) for p in recent]})


@router.post("/health/{alias}/probe", response_model=Probed)
async def probe_now(request: Request, alias: str) -> Response:
    svc = services(request)
    model = await svc.db.models.get(alias)
    if model is None:
        raise NotFound(f"no model `{alias}` on the bench or among retired models", param="alias")
    if model.retired:
        raise Conflict(f"`{model.alias}` is retired; restore it before probing it", field="alias")
    probe = await svc.health.probe(model, caller=caller_of(request))
    (health,) = await svc.health.report(model.alias)
    return json_response({"probe": _probe(probe), "model": _health(health)})


def _probe(probe: ProbeRecord) -> dict[str, Any]:
    shown: dict[str, Any] = plain(probe)
    shown.pop("model_id", None)
    return shown


def _health(found: ModelHealth) -> dict[str, Any]:
    health = found.health
    return {
        "alias": found.alias,
        "endpoint": found.endpoint,
        "served_id": found.served_id,
        "status": health.status,
        "label": health.label,
        "why": health.why,
        "retires_in_days": health.retires_in_days,
        "last_answer_at": plain(found.last_answer_at),
        "last_call_at": plain(found.last_call_at),
        "probes": [_probe(p) for p in found.probes],
    }
