"""Models on the bench: register, list, rename, role, ad hoc, facts, retire, restore."""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import Response

from panelgate.core.errors import NotFound
from panelgate.http.admin.shapes import only_fields, plain, text_field
from panelgate.http.body import read_json_object
from panelgate.http.panel_route import caller_of
from panelgate.http.responses import json_response
from panelgate.http.services import services

router = APIRouter()
FACTS = {"role", "ad_hoc", "context_window", "max_output", "vision", "tools"}


def default_alias(served_id: str) -> str:
    """The served id's last path segment, `:` made `-` (`org/m:free` → `m-free`)."""
    return served_id.rstrip("/").rsplit("/", 1)[-1].replace(":", "-")


@router.get("/models")
async def list_models(request: Request, all: bool = False) -> Response:
    models = await services(request).db.models.list(include_retired=all)
    return json_response({"models": plain(models)})


@router.get("/models/{alias}")
async def get_model(request: Request, alias: str) -> Response:
    model = await services(request).db.models.get(alias)
    if model is None:
        raise NotFound(f"no model `{alias}` on the bench", param="alias")
    return json_response({"model": plain(model)})


@router.post("/models", status_code=201)
async def add_model(request: Request) -> Response:
    body = only_fields(await read_json_object(request, 1_000_000), {"alias", "served_id", "endpoint", *FACTS})
    served_id = str(text_field(body, "served_id"))
    alias = text_field(body, "alias", required=False) or default_alias(served_id)
    facts = {k: body[k] for k in FACTS if k in body}
    model = await services(request).db.models.add(
        alias, served_id, str(text_field(body, "endpoint")), actor=caller_of(request), **facts
    )
    return json_response({"model": plain(model)}, 201)


@router.patch("/models/{alias}")
async def change_model(request: Request, alias: str) -> Response:
    """Rename (`alias`) and change facts in one call; a rename happens first."""
    db = services(request).db
    body = only_fields(await read_json_object(request, 1_000_000), {"alias", *FACTS})
    actor = caller_of(request)
    new_alias = text_field(body, "alias", required=False)
    if new_alias and new_alias != alias:
        await db.models.rename(alias, new_alias, actor=actor)
        alias = new_alias
    changes = {k: body[k] for k in FACTS if k in body}
    model = await db.models.update(alias, changes, actor=actor) if changes else await db.models.get(alias)
    return json_response({"model": plain(model)})


@router.post("/models/{alias}/retire")
async def retire_model(request: Request, alias: str) -> Response:
    body = only_fields(await read_json_object(request, 1_000_000), {"why"})
    why = text_field(body, "why", required=False) or "retired by hand"
    model = await services(request).db.models.retire(alias, why, actor=caller_of(request))
    return json_response({"model": plain(model)})


@router.post("/models/{alias}/restore")
async def restore_model(request: Request, alias: str) -> Response:
    model = await services(request).db.models.restore(alias, actor=caller_of(request))
    return json_response({"model": plain(model)})
