"""The editable configuration as one YAML file: export and import.

Import takes JSON (`{"yaml": "..."}`) like every other write, so the
same-origin JSON rule covers it; the whole document is checked before
anything changes.
"""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field
from starlette.responses import Response

from panelgate.http.admin.schemas import NON_BLANK, Body
from panelgate.http.admin.shapes import only_fields, text_field
from panelgate.http.body import json_body, read_json_object
from panelgate.http.panel_route import caller_of
from panelgate.http.responses import json_response
from panelgate.http.services import services

router = APIRouter()


class ConfigFile(BaseModel):
    """The exported file, a YAML document (its sections as `store/config_doc.py` reads them)."""

    version: int
    gateway: dict[str, Any] = Field(description="the gateway settings")
    endpoints: list[dict[str, Any]]
    models: list[dict[str, Any]] = Field(description="retired ones too")
    collections: list[dict[str, Any]]


YAML_REPLY = {
    "description": "The configuration as one YAML file (no secrets)",
    "content": {"application/yaml": {"schema": ConfigFile.model_json_schema()}},
}


class ConfigImport(Body):
    yaml: str = Field(pattern=NON_BLANK, description="a file `GET /api/config` wrote (edited or not)")


class SectionCounts(BaseModel):
    added: int
    changed: int
    unchanged: int


class Imported(BaseModel):
    ok: Literal[True]
    imported: dict[str, SectionCounts] = Field(description="per section (endpoints, models, ...)")


@router.get("/config", response_class=Response, responses={200: YAML_REPLY})
async def export_config(request: Request) -> Response:
    text = await services(request).db.config.export_yaml()
    return Response(
        text,
        media_type="application/yaml",
        headers={"Content-Disposition": 'attachment; filename="panelgate.yaml"'},
    )


@router.post("/config", response_model=Imported, openapi_extra=json_body(ConfigImport))
async def import_config(request: Request) -> Response:
    body = only_fields(await read_json_object(request, 5_000_000), {"yaml"})
    svc = services(request)
    summary = await svc.db.config.import_yaml(str(text_field(body, "yaml")), caller_of(request), svc.keys.set)
    return json_response({"ok": True, "imported": summary})
