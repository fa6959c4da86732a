"""Collections: list, show, save (whole or in part), delete."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Literal

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field
from starlette.responses import Response

from panelgate.core.errors import BadRequest, NotFound
from panelgate.core.types import CollectionInfo, OfferedTools, ReplyMode, Shape, VerdictsOwed
from panelgate.engine.listing import describe
from panelgate.http.admin.schemas import Body, Removed, left_out
from panelgate.http.admin.shapes import only_fields, plain
from panelgate.http.body import json_body, read_json_object
from panelgate.http.panel_route import caller_of
from panelgate.http.responses import json_response
from panelgate.http.services import services
from panelgate.store.rules import MAX_DESCRIPTION, MAX_SHADOWS, MAX_TAG, MAX_TAGS

router = APIRouter()


class CollectionFields(Body):
    """`PUT /api/collections/{name}`: the whole collection; fields left out take their defaults."""

    members: list[str] = Field(min_length=1, description="aliases on the bench, in order")
    shape: Shape | None = Field(default=None, description="null: read from each prompt")
    description: str | None = Field(default=None, max_length=MAX_DESCRIPTION)
    tags: list[str] = left_out(f"each up to {MAX_TAG} characters", max_length=MAX_TAGS)
    reply: ReplyMode | None = Field(default=None, description="null: all")
    merger: str | None = Field(default=None, description="the alias that merges; null or empty: chosen")
    shadows: int = left_out("route mode: members answering each turn too; left out: 0", ge=0, le=MAX_SHADOWS)
    offered_tools: OfferedTools = left_out(
        "tools a request offers with no tool call in its history: drop (answer without them, saying so "
        "in bench.note) or refuse (400 pointing to :route); left out: drop"
    )
    verdicts_owed: VerdictsOwed = left_out(
        "which panels owe verdicts: all, chats (not a chat UI's background tasks, whose prompt opens "
        "with `### Task:`) or none; left out: all"
    )


FIELDS = set(CollectionFields.model_fields)


class CollectionChange(CollectionFields):
    """`PATCH /api/collections/{name}`: the fields given change, the rest stay; `add`/`remove` edit
    the members."""

    members: list[str] = left_out("every member, replacing them", min_length=1)
    add: list[str] = left_out("aliases to add at the end")
    remove: list[str] = left_out("aliases to take out")


class Together(BaseModel):
    context_window: int | None = Field(description="the largest prompt every member takes")
    context_unknown: list[str]
    capabilities: list[Literal["vision", "tools"]]
    connections: list[str]
    limits: dict[str, Any]


class CollectionShown(BaseModel):
    name: str
    members: list[str]
    shape: Shape | None
    description: str
    tags: list[str]
    reply: ReplyMode
    merger: str
    shadows: int
    offered_tools: OfferedTools
    verdicts_owed: VerdictsOwed
    explorers: int = Field(description="explorer seats a panel of it gets now")
    together: Together


class CollectionList(BaseModel):
    collections: list[CollectionShown]


class OneCollection(BaseModel):
    collection: CollectionShown


def _aliases(body: dict[str, Any], field: str) -> tuple[str, ...]:
    value = body.get(field, [])
    if not isinstance(value, list) or not all(isinstance(a, str) for a in value):
        raise BadRequest(f"`{field}` must be a list of model aliases", param=field)
    return tuple(a.strip() for a in value)


def _apply(base: CollectionInfo, body: dict[str, Any]) -> CollectionInfo:
    changes: dict[str, Any] = {}
    if "members" in body:
        changes["members"] = _aliases(body, "members")
    if "tags" in body:
        changes["tags"] = _aliases(body, "tags")
    for field in ("shape", "description", "reply", "merger"):
        if field in body:
            value = body[field]
            if value is not None and not isinstance(value, str):
                raise BadRequest(f"`{field}` must be a string", param=field)
            changes[field] = value if field == "shape" else (value or ("all" if field == "reply" else ""))
    for field in ("shadows", "offered_tools", "verdicts_owed"):
        if field in body:
            changes[field] = body[field]  # the store checks each value
    changed = replace(base, **changes)
    removed = set(_aliases(body, "remove"))
    added = [a for a in _aliases(body, "add") if a not in changed.members and a not in removed]
    members = tuple(a for a in changed.members if a not in removed) + tuple(added)
    return replace(changed, members=members)


async def _shown(request: Request, collection: CollectionInfo) -> dict[str, Any]:
    db = services(request).db
    return {**plain(collection), **describe(collection, await db.models.roster(), await db.gateway.limits())}


@router.get("/collections", response_model=CollectionList)
async def list_collections(request: Request) -> Response:
    collections = await services(request).db.collections.list()
    return json_response({"collections": [await _shown(request, c) for c in collections]})


@router.get("/collections/{name}", response_model=OneCollection)
async def show_collection(request: Request, name: str) -> Response:
    found = await services(request).db.collections.get(name)
    if found is None:
        raise NotFound(f"no collection named `{name}`", param="name")
    return json_response({"collection": await _shown(request, found)})


@router.put("/collections/{name}", response_model=OneCollection, openapi_extra=json_body(CollectionFields))
async def save_collection(request: Request, name: str) -> Response:
    """Create or replace: fields left out take their defaults."""
    body = only_fields(await read_json_object(request, 1_000_000), FIELDS)
    saved = await services(request).db.collections.save(
        _apply(CollectionInfo(name=name, members=()), body), actor=caller_of(request)
    )
    return json_response({"collection": await _shown(request, saved)})


@router.patch("/collections/{name}", response_model=OneCollection, openapi_extra=json_body(CollectionChange))
async def change_collection(request: Request, name: str) -> Response:
    """Change some fields, keep the rest; `add`/`remove` edit the members."""
    db = services(request).db
    body = only_fields(await read_json_object(request, 1_000_000), set(CollectionChange.model_fields))
    found = await db.collections.get(name)
    if found is None:
        raise NotFound(
            f"no collection named `{name}`; create it with PUT /api/collections/{name}", param="name"
        )
    saved = await db.collections.save(_apply(found, body), actor=caller_of(request))
    return json_response({"collection": await _shown(request, saved)})


@router.delete("/collections/{name}", response_model=Removed)
async def delete_collection(request: Request, name: str) -> Response:
    await services(request).db.collections.delete(name, actor=caller_of(request))
    return json_response({"ok": True, "removed": name})
