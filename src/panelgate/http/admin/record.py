"""`GET /api/record`: what the Record page draws, for its first paint and every redraw after.

Per shape, the models ranked by what their verdicts say (`engine/standings.py`:
the posterior mean, the 90 % interval, the verdicts behind it, the pairwise
strength); the verdicts of each of the last 30 days; who the explorer
seats go to next on each shape, and why (`engine/explorer_preview.py`);
and the newest verdicts one by one with the key and source (`claude-code`)
they came from, narrowed to one source when asked (`store/verdict_list.py`).
The page renders the same `read_record` on the server and polls this route
to redraw, so both always show one reading.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import UTC, date, datetime
from typing import Any, Literal

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field
from starlette.responses import Response

from panelgate.core.errors import BadRequest, NotFound
from panelgate.core.explorer_preview import Reason, ShapePreview
from panelgate.core.shapes import checked_shape
from panelgate.core.types import CollectionInfo
from panelgate.engine.explorer_preview import preview_explorers
from panelgate.engine.standings import read_standings
from panelgate.engine.verdict_desk import SOURCE_PATTERN
from panelgate.http.bench_schemas import Standing
from panelgate.http.responses import json_response
from panelgate.http.services import services
from panelgate.store import Database
from panelgate.store.verdict_list import ListedVerdict
from panelgate.store.verdict_timeline import DayVerdicts, verdicts_per_day

router = APIRouter()
TIMELINE_DAYS = 30
NEWEST_VERDICTS = 20


class DayShown(BaseModel):
    day: date = Field(description="a UTC day")
    useful: int
    not_useful: int


class Timeline(BaseModel):
    days: list[DayShown] = Field(description=f"the last {TIMELINE_DAYS} UTC days, oldest first, today last")
    useful: int = Field(description="current verdicts of those days that said useful")
    not_useful: int


class ExplorerShown(BaseModel):
    alias: str
    reason: Reason
    why: str = Field(description="the reason in words, e.g. `due: unseated for 12 panels (floor 10)`")
    mean: float = Field(ge=0, le=1, description="its posterior mean on the shape")
    next_panel: bool = Field(description="it takes one of the next panel's explorer seats")


class ShapeExplorers(BaseModel):
    seats: int = Field(description="explorer seats a panel has (0: none are seated)")
    floor: int = Field(description="every model that may explore sits at least once in this many panels")
    rule: Literal["evidence", "stalest"]
    candidates: list[ExplorerShown] = Field(
        description="every candidate for an explorer seat, first choice first"
    )


class VerdictShown(BaseModel):
    call: str
    alias: str = Field(description="the judged model's alias now")
    useful: bool
    actor: str = Field(description="who gave it: the gateway key's name, or `local`")
    source: str | None = Field(description="where it was given from (`claude-code`); null: not said")
    at: datetime


class RecordShown(BaseModel):
    collection: str | None = Field(
        description="the collection the record is narrowed to; null: the whole bench"
    )
    shape: str | None
    standings: dict[str, list[Standing]] = Field(
        description="per shape with verdicts, best posterior mean first (as `GET /bench/record`'s `shapes`)"
    )
    timeline: Timeline
    explorers: dict[str, ShapeExplorers] = Field(
        description="per shape shown (general when the record is empty), the next explorer seats and why"
    )
    source: str | None = Field(description="the source the verdict list is narrowed to; null: every one")
    sources: list[str] = Field(description="every source verdicts were given from, sorted")
    verdicts: list[VerdictShown] = Field(
        description=f"the {NEWEST_VERDICTS} newest current verdicts (of the collection and source asked)"
    )


def find_collection(collections: Mapping[str, CollectionInfo], asked: str) -> CollectionInfo | None:
    """The asked collection (`core` or `bench/core`; empty: None); a 404 listing them when unknown."""
    name = asked.removeprefix("bench/").strip()
    if not name:
        return None
    if name not in collections:
        known = ", ".join(f"bench/{n}" for n in sorted(collections)) or "none yet"
        raise NotFound(f"no collection `{name}`; collections: {known}", param="collection")
    return collections[name]


def checked_source(source: str) -> str | None:
    """The asked source (None for every one); a 400 when it is no source a verdict could carry."""
    asked = source.strip() or None
    if asked is not None and not re.fullmatch(SOURCE_PATTERN, asked):
        raise BadRequest(f"`{asked[:60]}` is no verdict source (e.g. `claude-code`)", param="source")
    return asked


def _listed(verdict: ListedVerdict) -> dict[str, Any]:
    return {
        "call": verdict.call,
        "alias": verdict.alias,
        "useful": verdict.useful,
        "actor": verdict.actor,
        "source": verdict.source,
        "at": verdict.at.isoformat(),
    }


def _timeline(days: list[DayVerdicts]) -> dict[str, Any]:
    return {
        "days": [{"day": d.day.isoformat(), "useful": d.useful, "not_useful": d.not_useful} for d in days],
        "useful": sum(d.useful for d in days),
        "not_useful": sum(d.not_useful for d in days),
    }


def _explorers(preview: ShapePreview) -> dict[str, Any]:
    return {
        "seats": preview.seats,
        "floor": preview.floor,
        "rule": preview.rule,
        "candidates": [
            {
                "alias": c.alias,
                "reason": c.reason,
                "why": c.why,
                "mean": round(c.mean, 4),
                "next_panel": c.next_panel,
            }
            for c in preview.candidates
        ],
    }


async def read_record(
    db: Database, collection: CollectionInfo | None, shape: str | None, today: date, source: str | None = None
) -> dict[str, Any]:
    """The record as the page draws it (`RecordShown`), narrowed to `collection` and `shape` when given;
    `source` narrows the list of newest verdicts (the estimates stay the whole record's)."""
    name = None if collection is None else collection.name
    standings = await read_standings(db, name, shape)
    shown = [shape] if shape is not None else list(standings) or ["general"]
    previews = await preview_explorers(db, shown, collection)
    days = await verdicts_per_day(db, today, TIMELINE_DAYS, name)
    return {
        "collection": name,
        "shape": shape,
        "standings": standings,
        "timeline": _timeline(days),
        "explorers": {preview.shape: _explorers(preview) for preview in previews},
        "source": source,
        "sources": await db.verdicts.sources(),
        "verdicts": [_listed(v) for v in await db.verdicts.newest(name, source, most=NEWEST_VERDICTS)],
    }


@router.get("/record", response_model=RecordShown)
async def record(request: Request, collection: str = "", shape: str = "", source: str = "") -> Response:
    """The ranked record per shape, verdicts per day, the next explorer seats and the newest verdicts;
    narrowed by `collection` (`core` or `bench/core`) and `shape` when given, the newest verdicts by
    `source` (`claude-code`)."""
    db = services(request).db
    asked = find_collection((await db.bench.snapshot()).collections, collection)
    today = datetime.now(UTC).date()
    return json_response(await read_record(db, asked, checked_shape(shape), today, checked_source(source)))
