"""The editable configuration as one YAML file: export and import.

Import takes JSON (`{"yaml": "..."}`) like every other write, so the
same-origin JSON rule covers it; the whole document is checked before
anything changes.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import Response

from panelgate.http.admin.shapes import only_fields, text_field
from panelgate.http.body import read_json_object
from panelgate.http.panel_route import caller_of
from panelgate.http.responses import json_response
from panelgate.http.services import services

router = APIRouter()


@router.get("/config")
async def export_config(request: Request) -> Response:
    text = await services(request).db.config.export_yaml()
    return Response(
        text,
        media_type="application/yaml",
        headers={"Content-Disposition": 'attachment; filename="panelgate.yaml"'},
    )


@router.post("/config")
async def import_config(request: Request) -> Response:
    body = only_fields(await read_json_object(request, 5_000_000), {"yaml"})
    summary = await services(request).db.config.import_yaml(
        str(text_field(body, "yaml")), actor=caller_of(request)
    )
    return json_response({"ok": True, "imported": summary})
