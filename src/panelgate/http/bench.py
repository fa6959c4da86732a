"""The bench's own routes: verdicts, the record, and which seats still need a verdict."""

from __future__ import annotations

from datetime import UTC, datetime

from fastapi import APIRouter, Request
from starlette.responses import Response

from panelgate.core.errors import BadRequest
from panelgate.core.shapes import checked_shape
from panelgate.engine.standings import read_standings
from panelgate.engine.verdict_desk import calls_in_scope, owed_seats, read_verdict, record_verdict
from panelgate.http.bench_schemas import (
    REFUSALS,
    Owed,
    Pending,
    PendingBody,
    Record,
    VerdictBody,
    VerdictRecorded,
)
from panelgate.http.body import json_body, read_json_object
from panelgate.http.key_scope import caller_scope
from panelgate.http.responses import json_response
from panelgate.http.services import services

router = APIRouter(responses=REFUSALS)


@router.post("/bench/verdict", response_model=VerdictRecorded, openapi_extra=json_body(VerdictBody))
async def verdict(request: Request) -> Response:
    """Record a verdict; fields left out keep the call's earlier note and claims."""
    asked = read_verdict(await read_json_object(request, 1_000_000))
    outcome = await record_verdict(services(request).db, caller_scope(request), asked)
    return json_response({"ok": True, "call": asked.call, "useful": asked.useful, "result": outcome})


@router.get("/bench/record", response_model=Record)
async def record(
    request: Request, collection: str = "", task: str = "", shape: str = "", source: str = ""
) -> Response:
    """Verdict tallies per model (of verdicts given from `source` when named), and per shape each
    model's estimated usefulness, ranked."""
    asked_shape = checked_shape(shape)
    name = caller_scope(request).record_of(collection.removeprefix("bench/").strip() or None)
    db = services(request).db
    counts = await db.verdicts.record_counts(name, task.strip() or None, source.strip() or None)
    ranked = await read_standings(db, name, asked_shape)
    asked = {"collection": collection, "task": task, "shape": shape, "source": source}
    return json_response({**asked, "aliases": counts, "shapes": ranked})


@router.get("/bench/pending", response_model=Owed)
async def owed(request: Request) -> Response:
    """The seats of the caller's panels of the last day that answered and have no verdict yet."""
    seats = await owed_seats(services(request).db, caller_scope(request), datetime.now(UTC))
    listed = [
        {
            "call": seat.call,
            "panel": seat.panel,
            "collection": f"bench/{seat.collection}",
            "seat": seat.label,
            "alias": seat.alias,
            "shape": seat.shape,
            "at": seat.at.isoformat(),
            "preview": seat.preview,
        }
        for seat in seats
    ]
    return json_response({"pending": listed})


@router.post("/bench/pending", response_model=Pending, openapi_extra=json_body(PendingBody))
async def pending(request: Request) -> Response:
    body = await read_json_object(request, 1_000_000)
    calls = body.get("calls")
    if not isinstance(calls, list) or not all(isinstance(c, str) for c in calls):
        raise BadRequest("`calls` must be a list of call ids", param="calls")
    db = services(request).db
    visible = await calls_in_scope(db, caller_scope(request), calls[:1000])
    return json_response({"pending": await db.verdicts.pending(visible)})
