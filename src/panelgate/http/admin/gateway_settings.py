"""Gateway settings: how many seats a panel has and how long a seat may take."""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import Response

from panelgate.core.types import GatewayLimits
from panelgate.http.admin.shapes import only_fields, plain
from panelgate.http.body import read_json_object
from panelgate.http.panel_route import caller_of
from panelgate.http.responses import json_response
from panelgate.http.services import services

router = APIRouter()


@router.get("/settings/gateway")
async def show(request: Request) -> Response:
    return json_response({"gateway": plain(await services(request).db.gateway.limits())})


@router.patch("/settings/gateway")
async def change(request: Request) -> Response:
    body = only_fields(await read_json_object(request, 1_000_000), set(GatewayLimits.__dataclass_fields__))
    limits = await services(request).db.gateway.update(body, actor=caller_of(request))
    return json_response({"gateway": plain(limits)})
