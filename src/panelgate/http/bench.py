"""The bench's own routes: verdicts, the record, and which seats still need a verdict."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from starlette.responses import Response

from panelgate.core.errors import BadRequest, NotFound
from panelgate.http.bench_schemas import (
    MAX_CLAIMS,
    MAX_NOTE,
    REFUSALS,
    Pending,
    PendingBody,
    Record,
    VerdictBody,
    VerdictRecorded,
)
from panelgate.http.body import json_body, read_json_object
from panelgate.http.key_scope import allowed_collections, check_collection
from panelgate.http.panel_route import caller_of
from panelgate.http.responses import json_response
from panelgate.http.services import services
from panelgate.store import errors as store_errors

router = APIRouter(responses=REFUSALS)


def _claims(body: dict[str, Any], field: str) -> list[str] | None:
    value = body.get(field)
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(c, str) for c in value):
        raise BadRequest(f"`{field}` must be a list of strings (verified claims)", param=field)
    if len(value) > MAX_CLAIMS:
        raise BadRequest(f"`{field}` holds more than {MAX_CLAIMS} claims", param=field)
    return [" ".join(c.split()) for c in value if c.strip()]


def _verdict_fields(body: dict[str, Any]) -> tuple[str, bool, str | None, list[str] | None, list[str] | None]:
    call = body.get("call")
    if not isinstance(call, str) or not call.strip():
        raise BadRequest(
            "`call` must be the call id of a seat, e.g. p20261130-101500-a1b2.member1", param="call"
        )
    useful = body.get("useful")
    if not isinstance(useful, bool):
        raise BadRequest("`useful` must be true or false", param="useful")
    note = body.get("note")
    if note is not None and not isinstance(note, str):
        raise BadRequest("`note` must be a string", param="note")
    if note is not None and len(note) > MAX_NOTE:
        raise BadRequest(f"`note` is longer than {MAX_NOTE} characters", param="note")
    return call.strip(), useful, note, _claims(body, "real"), _claims(body, "false")


@router.post("/bench/verdict", response_model=VerdictRecorded, openapi_extra=json_body(VerdictBody))
async def verdict(request: Request) -> Response:
    """Record a verdict; fields left out keep the call's earlier note and claims."""
    svc = services(request)
    call, useful, note, real, false = _verdict_fields(await read_json_object(request, 1_000_000))
    unknown = NotFound(
        f"no seat has the call id `{call}`; use a call id from a reply's bench.seats", param="call"
    )
    if not await _in_scope(request, [call]):
        raise unknown  # another collection's call is none of this key's business, not even its existence
    earlier = await svc.db.verdicts.current(call)
    try:
        outcome = await svc.db.verdicts.record(
            call,
            useful=useful,
            note=note if note is not None else (earlier.note if earlier else ""),
            real=real if real is not None else (earlier.real if earlier else ()),
            false=false if false is not None else (earlier.false if earlier else ()),
            actor=caller_of(request),
        )
    except store_errors.NotFound:
        raise unknown from None
    return json_response({"ok": True, "call": call, "useful": useful, "result": outcome})


@router.get("/bench/record", response_model=Record)
async def record(request: Request, collection: str = "", task: str = "") -> Response:
    name = collection.removeprefix("bench/").strip() or None
    allowed = allowed_collections(request)
    if allowed is not None and name is None:
        if len(allowed) != 1:
            listed = ", ".join(f"bench/{c}" for c in sorted(allowed))
            raise BadRequest(f"name one of this key's collections: ?collection= {listed}", param="collection")
        name = next(iter(allowed))
    check_collection(request, name)
    counts = await services(request).db.verdicts.record_counts(name, task.strip() or None)
    return json_response({"collection": collection, "task": task, "aliases": counts})


@router.post("/bench/pending", response_model=Pending, openapi_extra=json_body(PendingBody))
async def pending(request: Request) -> Response:
    body = await read_json_object(request, 1_000_000)
    calls = body.get("calls")
    if not isinstance(calls, list) or not all(isinstance(c, str) for c in calls):
        raise BadRequest("`calls` must be a list of call ids", param="calls")
    visible = await _in_scope(request, calls[:1000])
    return json_response({"pending": await services(request).db.verdicts.pending(visible)})


async def _in_scope(request: Request, calls: list[str]) -> list[str]:
    """The calls of `calls` this request's key may judge or read (all of them without a scope)."""
    allowed = allowed_collections(request)
    if allowed is None:
        return calls
    collections = await services(request).db.verdicts.collections_of(calls)
    return [call for call in calls if collections.get(call) in allowed]
