"""Models on the bench: register, list, rename, role, ad hoc, facts, retire, restore.

A model is registered only when its endpoint's listing names the served id
(or the caller says it is `unlisted`): a typo is caught when it is typed,
not at the first panel (`engine/served_check.py`).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field
from starlette.responses import Response

from panelgate.core.errors import BadRequest, NotFound
from panelgate.core.naming import ALIAS_RE
from panelgate.core.types import Role
from panelgate.engine.served_check import require_listed
from panelgate.http.admin.schemas import NON_BLANK, Body, left_out
from panelgate.http.admin.shapes import flag, only_fields, plain, text_field
from panelgate.http.body import json_body, read_json_object
from panelgate.http.panel_route import caller_of
from panelgate.http.responses import json_response
from panelgate.http.services import services
from panelgate.store.endpoints import Endpoints
from panelgate.store.model_rows import LARGEST_WINDOW
from panelgate.store.rules import check_alias, check_required_text

router = APIRouter()


class Facts(Body):
    """What a person says about a model; left out: unchanged (a new model: general, not ad hoc, unknown)."""

    role: Role = left_out()
    ad_hoc: bool = left_out("seated only when a caller names it")
    context_window: int | None = left_out("null: not known", ge=1, le=LARGEST_WINDOW)
    max_output: int | None = left_out("null: not known", ge=1, le=LARGEST_WINDOW)
    vision: bool | None = left_out("null: not known")
    tools: bool | None = left_out("null: not known")


FACTS = set(Facts.model_fields)


class NewModel(Facts):
    """`POST /api/models`: a served model id on an endpoint, under an alias."""

    served_id: str = Field(max_length=512, pattern=NON_BLANK, description="the id the endpoint serves it as")
    endpoint: str | None = Field(
        default=None,
        pattern=NON_BLANK,
        description="the endpoint's name; null: the default endpoint",
    )
    alias: str | None = Field(
        default=None, pattern=ALIAS_RE.pattern, description="null: the served id's last segment"
    )
    unlisted: bool | None = Field(
        default=None,
        description="add it although the endpoint's listing does not name it (or does not answer)",
    )


class ModelChange(Facts):
    """`PATCH /api/models/{alias}`: a new alias (renamed first), and facts."""

    alias: str | None = Field(default=None, pattern=ALIAS_RE.pattern, description="rename it to this")


class Retirement(Body):
    why: str | None = Field(default=None, pattern=NON_BLANK, description="null: retired by hand")


class ModelShown(BaseModel):
    id: int
    alias: str
    served_id: str
    endpoint: str
    role: Role
    ad_hoc: bool
    context_window: int | None
    max_output: int | None
    vision: bool | None
    tools: bool | None
    options: dict[str, Any] = Field(description="call options sent with every request")
    retired_at: datetime | None
    retired_by: str | None
    retired_why: str
    restore: dict[str, Any] | None = Field(description="where a restore puts it back; null on the bench")
    created_at: datetime
    endpoint_gone: bool
    former_aliases: list[str]


class ModelList(BaseModel):
    models: list[ModelShown]


class OneModel(BaseModel):
    model: ModelShown


async def _default_endpoint(endpoints: Endpoints) -> str:
    """The endpoint a model goes on when none is named (the first endpoint added is the default)."""
    chosen = next((e.name for e in await endpoints.list() if e.is_default), None)
    if chosen is None:
        raise BadRequest("no endpoint yet; add one first (`panelgate endpoint add`)", param="endpoint")
    return chosen


def default_alias(served_id: str) -> str:
    """The served id's last path segment, `:` made `-` (`org/m:free` → `m-free`)."""
    return served_id.rstrip("/").rsplit("/", 1)[-1].replace(":", "-")


@router.get("/models", response_model=ModelList)
async def list_models(request: Request, all: bool = False) -> Response:
    models = await services(request).db.models.list(include_retired=all)
    return json_response({"models": plain(models)})


@router.get("/models/{alias}", response_model=OneModel)
async def get_model(request: Request, alias: str) -> Response:
    model = await services(request).db.models.get(alias)
    if model is None:
        raise NotFound(f"no model `{alias}` on the bench", param="alias")
    return json_response({"model": plain(model)})


@router.post("/models", status_code=201, response_model=OneModel, openapi_extra=json_body(NewModel))
async def add_model(request: Request) -> Response:
    """Register a model; unless `unlisted`, only one its endpoint's listing names."""
    svc = services(request)
    body = only_fields(
        await read_json_object(request, 1_000_000), {"alias", "served_id", "endpoint", "unlisted", *FACTS}
    )
    # the store's rules for the names first, so the listing is asked only about a well-formed id
    served_id = check_required_text(text_field(body, "served_id"), "served_id", 512)
    endpoint_name = text_field(body, "endpoint", required=False) or await _default_endpoint(svc.db.endpoints)
    alias = check_alias(text_field(body, "alias", required=False) or default_alias(served_id))
    facts = {k: body[k] for k in FACTS if k in body}
    unlisted = flag(body, "unlisted")
    endpoint = await svc.db.endpoints.get(endpoint_name)
    if endpoint is not None and not unlisted:  # an unknown endpoint: the store refuses it
        await require_listed(svc.upstream, endpoint, served_id)
    model = await svc.db.models.add(alias, served_id, endpoint_name, actor=caller_of(request), **facts)
    return json_response({"model": plain(model)}, 201)


@router.patch("/models/{alias}", response_model=OneModel, openapi_extra=json_body(ModelChange))
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
    if model is None:
        raise NotFound(f"no model `{alias}` on the bench", param="alias")
    return json_response({"model": plain(model)})


@router.post("/models/{alias}/retire", response_model=OneModel, openapi_extra=json_body(Retirement))
async def retire_model(request: Request, alias: str) -> Response:
    body = only_fields(await read_json_object(request, 1_000_000), {"why"})
    why = text_field(body, "why", required=False) or "retired by hand"
    model = await services(request).db.models.retire(alias, why, actor=caller_of(request))
    return json_response({"model": plain(model)})


@router.post("/models/{alias}/restore", response_model=OneModel)
async def restore_model(request: Request, alias: str) -> Response:
    model = await services(request).db.models.restore(alias, actor=caller_of(request))
    return json_response({"model": plain(model)})
