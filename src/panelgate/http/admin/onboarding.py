"""Onboarding: the queue (each model's step, state, why and times), onboard models, stop, clear; candidates.

`POST /api/onboarding` checks the whole batch before queueing any of it and
answers 202 with the queued items; the queue is worked in the background
(see `engine.onboarding`), one model at a time, and `GET /api/onboarding`
shows how far each got. `GET /api/onboarding/candidates` lists what each
endpoint serves that the bench does not have yet; dismissing one keeps it
out of that list until it is undismissed.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Literal

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field
from starlette.responses import Response

from panelgate.core.errors import BadRequest
from panelgate.core.naming import ALIAS_RE, valid_alias
from panelgate.engine.health import PROBE_DEADLINE_S
from panelgate.engine.onboarding import QueueView
from panelgate.engine.onboarding_candidates import Candidate
from panelgate.engine.onboarding_probe import PROBES
from panelgate.engine.onboarding_suite import SUITE_CHOICES, SuiteChoice
from panelgate.http.admin.models import default_alias
from panelgate.http.admin.schemas import NON_BLANK, Body
from panelgate.http.admin.shapes import only_fields, plain
from panelgate.http.body import json_body, read_json_object
from panelgate.http.panel_route import caller_of
from panelgate.http.responses import json_response
from panelgate.http.services import services
from panelgate.store.errors import Invalid
from panelgate.store.onboarding_book import ItemState, NewItem, OnboardingItem, StepName, StepState
from panelgate.store.rules import check_choice, check_number, check_required_text

router = APIRouter()
MAX_BODY = 1_000_000
MAX_DEADLINE_S = 600.0
WORK_UNITS = {"register": 1, "probe": len(PROBES), "suite": 1}
"""How much of an item each step is, for progress bars (a probe call is one unit)."""


# ---- request bodies -------------------------------------------------------------------


class OnboardTarget(Body):
    endpoint: str = Field(pattern=NON_BLANK, description="the endpoint's name")
    served_id: str = Field(max_length=512, pattern=NON_BLANK, description="the id the endpoint serves it as")
    alias: str | None = Field(
        default=None, pattern=ALIAS_RE.pattern, description="null: the served id's last segment"
    )


class OnboardRequest(Body):
    """`POST /api/onboarding`: models to onboard, checked all together before any is queued."""

    items: list[OnboardTarget] = Field(min_length=1, max_length=50)
    suite: SuiteChoice = Field(
        default="full",
        description="full: probe, then every task of the review suite; quick: probe, then a few tasks of "
        "each shape; quick+adhoc: as quick, and the model stays ad hoc",
    )
    probe_deadline_s: float = Field(
        default=PROBE_DEADLINE_S, ge=1, le=MAX_DEADLINE_S, description="seconds each probe call may take"
    )


class CandidateChoice(Body):
    """Served ids of one endpoint to dismiss as candidates, or to offer again."""

    endpoint: str = Field(pattern=NON_BLANK)
    served_ids: list[str] = Field(min_length=1, max_length=500)


def _inline_body(model: type[BaseModel]) -> dict[str, Any]:
    """`openapi_extra` declaring `model` as the route's JSON body, its nested models written in place
    (`body.json_body` takes flat models only: a `$defs` reference would not resolve in the document)."""
    schema = model.model_json_schema()
    defs = schema.pop("$defs", {})

    def inlined(node: Any) -> Any:
        if isinstance(node, dict):
            if "$ref" in node:
                return inlined(defs[node["$ref"].rsplit("/", 1)[-1]])
            return {key: inlined(value) for key, value in node.items()}
        if isinstance(node, list):
            return [inlined(value) for value in node]
        return node

    return {"requestBody": {"required": True, "content": {"application/json": {"schema": inlined(schema)}}}}


# ---- replies --------------------------------------------------------------------------


class StepShown(BaseModel):
    name: StepName
    state: StepState
    detail: str
    started_at: datetime | None
    finished_at: datetime | None


class ProbeCallShown(BaseModel):
    probe: str = Field(description="ready, speed, tools or reasoning")
    status: str = Field(description="ok, empty, error, or refused (not sent: a rate limit)")
    seconds: float
    error_kind: str | None
    error: str
    measures: dict[str, Any] = Field(
        description="speed: runs, answered, p50_s, p95_s, chars_per_s, tokens_per_s; tools: called; "
        "reasoning: correct, reasoned"
    )


class Progress(BaseModel):
    done: int
    total: int = Field(description="register 1, probe 4 (a call each), suite 1")


class ItemShown(BaseModel):
    id: int
    batch: str = Field(description="the request that queued it")
    endpoint: str
    served_id: str
    alias: str
    suite: SuiteChoice
    probe_deadline_s: float
    state: ItemState = Field(
        description="queued, running, stopping, or how it ended: done, unavailable (it did not answer; "
        "it stays on the bench, ad hoc), failed, stopped"
    )
    step: StepName = Field(description="the step it is at, or ended at")
    why: str = Field(description="why it ended as it did (empty while it waits or runs)")
    model_id: int | None = Field(description="the model it put on the bench (null: not registered yet)")
    steps: list[StepShown]
    probes: list[ProbeCallShown]
    progress: Progress
    starts: int = Field(description="times a worker began it; more than 1: resumed after a gateway stopped")
    asked_by: str
    queued_at: datetime
    started_at: datetime | None
    updated_at: datetime
    finished_at: datetime | None


class Worker(BaseModel):
    holder: str
    expires_at: datetime
    here: bool = Field(description="whether the process that answered works the queue")


class QueueShown(BaseModel):
    items: list[ItemShown] = Field(description="in queue order, finished ones too until cleared")
    waiting: int = Field(description="items queued or being worked")
    worker: Worker | None = Field(description="the process working the queue (null: none is)")


class Queued(BaseModel):
    batch: str
    items: list[ItemShown]


class Stopped(BaseModel):
    ok: Literal[True]
    stopped: int = Field(description="queued items that will not run")
    stopping: int = Field(description="the item being worked, stopping after its current call (0 or 1)")


class Cleared(BaseModel):
    ok: Literal[True]
    cleared: int = Field(description="finished items forgotten")


class CandidateShown(BaseModel):
    endpoint: str
    served_id: str
    alias: str = Field(description="the alias it gets on the bench when none is given")
    queued: bool = Field(description="waiting in the onboarding queue")
    dismissed_at: datetime | None
    dismissed_by: str | None


class Unreachable(BaseModel):
    endpoint: str
    why: str


class CandidateList(BaseModel):
    candidates: list[CandidateShown] = Field(description="served, not on the bench, not dismissed")
    dismissed: list[CandidateShown] = Field(description="served, not on the bench, dismissed")
    unreachable: list[Unreachable] = Field(description="endpoints whose listing did not answer")


class Dismissed(BaseModel):
    ok: Literal[True]
    endpoint: str
    changed: list[str] = Field(description="the served ids whose state changed")


# ---- routes ---------------------------------------------------------------------------


@router.get("/onboarding", response_model=QueueShown)
async def queue(request: Request, batch: str | None = None) -> Response:
    return json_response(_queue(await services(request).onboarding.view(batch)))


@router.post(
    "/onboarding", status_code=202, response_model=Queued, openapi_extra=_inline_body(OnboardRequest)
)
async def onboard(request: Request) -> Response:
    """Queue models to onboard (checked all together first); answers at once, the queue works them."""
    body = only_fields(await read_json_object(request, MAX_BODY), set(OnboardRequest.model_fields))
    items = [_target(raw, index) for index, raw in enumerate(_item_list(body.get("items")))]
    suite = check_choice(body.get("suite", "full"), SUITE_CHOICES, "suite")
    deadline = check_number(
        body.get("probe_deadline_s", PROBE_DEADLINE_S), "probe_deadline_s", 1, MAX_DEADLINE_S
    )
    queued = await services(request).onboarding.enqueue(
        items, suite=suite, probe_deadline_s=deadline, asked_by=caller_of(request)
    )
    return json_response({"batch": queued[0].batch, "items": [_item(i) for i in queued]}, 202)


@router.post("/onboarding/stop", response_model=Stopped)
async def stop(request: Request) -> Response:
    """Stop the queue: what has not begun will not; the model being worked stops after its current call."""
    stopped, stopping = await services(request).onboarding.stop(caller_of(request))
    return json_response({"ok": True, "stopped": stopped, "stopping": stopping})


@router.delete("/onboarding", response_model=Cleared)
async def clear(request: Request) -> Response:
    """Forget the finished items (their models stay on the bench)."""
    return json_response({"ok": True, "cleared": await services(request).onboarding.clear()})


@router.get("/onboarding/candidates", response_model=CandidateList)
async def candidates(request: Request, endpoint: str | None = None) -> Response:
    found = await services(request).onboarding.candidates(endpoint)
    return json_response(
        {
            "candidates": [_candidate(c) for c in found.offered],
            "dismissed": [_candidate(c) for c in found.dismissed],
            "unreachable": plain(found.failures),
        }
    )


@router.post(
    "/onboarding/candidates/dismiss", response_model=Dismissed, openapi_extra=json_body(CandidateChoice)
)
async def dismiss(request: Request) -> Response:
    """Stop offering these served ids of an endpoint as candidates."""
    endpoint, served_ids = await _choice(request)
    changed = await services(request).onboarding.dismiss(endpoint, served_ids, caller_of(request))
    return json_response({"ok": True, "endpoint": endpoint, "changed": changed})


@router.post(
    "/onboarding/candidates/undismiss", response_model=Dismissed, openapi_extra=json_body(CandidateChoice)
)
async def undismiss(request: Request) -> Response:
    """Offer dismissed served ids of an endpoint as candidates again."""
    endpoint, served_ids = await _choice(request)
    changed = await services(request).onboarding.undismiss(endpoint, served_ids, caller_of(request))
    return json_response({"ok": True, "endpoint": endpoint, "changed": changed})


# ---- reading bodies ---------------------------------------------------------------------


def _item_list(raw: object) -> list[object]:
    if raw is None:
        raise BadRequest(
            "`items` is required: the models to onboard, each {endpoint, served_id, alias?}", param="items"
        )
    if not isinstance(raw, list):
        raise BadRequest("`items` must be a list of {endpoint, served_id, alias?}", param="items")
    if not raw:
        raise BadRequest("`items` is empty: name at least one model to onboard", param="items")
    return raw


def _target(raw: object, index: int) -> NewItem:
    at = f"items[{index}]"
    if not isinstance(raw, dict):
        raise BadRequest(f"`{at}` must be an object {{endpoint, served_id, alias?}}", param=at)
    unknown = sorted(set(raw) - set(OnboardTarget.model_fields))
    if unknown:
        raise BadRequest(
            f"unknown field `{at}.{unknown[0]}`; an item takes endpoint, served_id and alias",
            param=f"{at}.{unknown[0]}",
        )
    endpoint = check_required_text(raw.get("endpoint"), f"{at}.endpoint", 64)
    served_id = check_required_text(raw.get("served_id"), f"{at}.served_id", 512)
    alias = raw.get("alias")
    if alias is None:
        alias = default_alias(served_id)
        if not valid_alias(alias):
            raise Invalid(
                f"`{served_id}` makes the alias `{alias}`, which is not allowed (2–64 letters, digits, `.`, "
                f"`_` or `-`); give `{at}.alias`",
                field=f"{at}.alias",
            )
    return NewItem(
        endpoint=endpoint, served_id=served_id, alias=check_required_text(alias, f"{at}.alias", 64)
    )


async def _choice(request: Request) -> tuple[str, list[str]]:
    body = only_fields(await read_json_object(request, MAX_BODY), set(CandidateChoice.model_fields))
    endpoint = check_required_text(body.get("endpoint"), "endpoint", 64)
    raw = body.get("served_ids")
    if not isinstance(raw, list) or not raw or len(raw) > 500:
        raise BadRequest("`served_ids` must be a list of 1 to 500 served model ids", param="served_ids")
    served_ids = [check_required_text(value, f"served_ids[{n}]", 512) for n, value in enumerate(raw)]
    return endpoint, served_ids


# ---- writing replies ----------------------------------------------------------------------


def _queue(view: QueueView) -> dict[str, Any]:
    lease = view.lease
    current = lease is not None and lease.expires_at > datetime.now(UTC)
    return {
        "items": [_item(item) for item in view.items],
        "waiting": sum(1 for item in view.items if not item.finished),
        "worker": (
            {
                "holder": lease.holder,
                "expires_at": lease.expires_at.isoformat(),
                "here": lease.holder == view.holder,
            }
            if lease is not None and current
            else None
        ),
    }


def _item(item: OnboardingItem) -> dict[str, Any]:
    shown: dict[str, Any] = plain(item)
    total = sum(WORK_UNITS.values())
    done = (
        total
        if item.finished
        else sum(_units(step.name, step.state, len(item.probes)) for step in item.steps)
    )
    shown["progress"] = {"done": done, "total": total}
    return shown


def _units(step: StepName, state: StepState, probe_calls: int) -> int:
    if state in ("done", "failed", "skipped"):
        return WORK_UNITS[step]
    return min(probe_calls, WORK_UNITS[step]) if step == "probe" else 0


def _candidate(candidate: Candidate) -> dict[str, Any]:
    dismissal = candidate.dismissed
    return {
        "endpoint": candidate.endpoint,
        "served_id": candidate.served_id,
        "alias": default_alias(candidate.served_id),
        "queued": candidate.queued,
        "dismissed_at": None if dismissal is None else dismissal.dismissed_at.isoformat(),
        "dismissed_by": None if dismissal is None else dismissal.dismissed_by,
    }
