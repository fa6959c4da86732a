"""The review suite: its tasks, runs of it, and where each model stands.

`GET /api/suite/tasks` lists every task (the starter pack and the data
folder's own) and every task folder that could not be read, with the file
and field at fault. `POST /api/suite/run` asks models tasks (every model the
suite asks on its own and every task that is not a draft, when none are
named): `dry_run` answers with what would be sent and sends nothing;
`stream` answers with server-sent events as each answer is kept (what the
CLI's progress bars follow), else once the run is over. `GET
/api/suite/status` is each model's standing per shape, and `GET
/api/suite/answers` the newest answers themselves.
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import AsyncIterator
from datetime import datetime
from typing import Any

import orjson
from fastapi import APIRouter, Request
from pydantic import BaseModel, Field
from starlette.responses import Response

from panelgate.core.errors import BadRequest, GatewayError
from panelgate.http.admin.schemas import Body, left_out
from panelgate.http.admin.shapes import flag, only_fields, plain
from panelgate.http.body import json_body, read_json_object
from panelgate.http.panel_route import caller_of
from panelgate.http.responses import StreamedReply, json_response
from panelgate.http.services import Services, services
from panelgate.store.errors import StoreError
from panelgate.store.rules import storable
from panelgate.store.suite_book import SuiteAnswer
from panelgate.suite.desk import SuiteDesk, SuiteEvent
from panelgate.suite.plan import RunPlan, Skip
from panelgate.suite.prompt import task_messages
from panelgate.suite.results import ModelTally, ShapeTally
from panelgate.suite.scoring import Score
from panelgate.suite.task import Task

log = logging.getLogger(__name__)
router = APIRouter()
MAX_NAMES = 500
EVENT_STREAM = "text/event-stream"
STREAM_EVENT = {
    "type": "object",
    "description": "`stream`: each event's `data` is a JSON object holding `plan`, then `answer` or "
    "`skipped` per pair, then `done` (or `error`); the last is `[DONE]`",
    "properties": {"data": {"type": "string"}, "event": {"type": "string"}},
    "required": ["data"],
}


# ---- documents -------------------------------------------------------------------------


class TaskShown(BaseModel):
    id: str
    title: str
    why: str
    shape: str
    origin: str = Field(description="starter (shipped in the package) or data (the data folder)")
    draft: bool
    score_in: str = Field(description="whole, or first_line (a verdict or a faulty line on the first line)")
    min_answer_chars: int
    attach: list[str] = Field(description="the files sent after the prompt")
    must_find: list[str] = Field(description="each clause's label")
    must_not_claim: list[str]
    source: str
    license: str


class ProblemShown(BaseModel):
    path: str
    field: str | None
    message: str


class TaskList(BaseModel):
    tasks: list[TaskShown]
    problems: list[ProblemShown] = Field(description="task folders that could not be read, and why")


class RunRequest(Body):
    """`POST /api/suite/run`."""

    models: list[str] = left_out("aliases to ask (default: every model the suite asks on its own)")
    tasks: list[str] = left_out("task ids (default: every task that is not a draft; drafts run when named)")
    dry_run: bool = left_out("answer with what would be sent, and send nothing")
    stream: bool = left_out("answer with server-sent events, one as each answer is kept")


class SkipShown(BaseModel):
    model: str
    task: str
    why: str


class AnswerShown(BaseModel):
    model: str
    task: str
    shape: str
    asked_at: datetime
    status: str = Field(description="ok, empty, error, or refused (not sent: a rate limit)")
    error_kind: str | None
    error: str
    counted: bool = Field(description="false: not an answer (failed, refused, empty or too short)")
    why_not: str
    found: list[str]
    missed: list[str]
    invented: list[str]
    recall: float | None
    right: bool = Field(description="counted, found everything and invented nothing")
    seconds: float
    tokens_in: int | None
    tokens_out: int | None
    answer: str | None = Field(description="the answer's text (only in `GET /api/suite/answers`)")


class PlannedShown(BaseModel):
    model: str
    task: str
    shape: str
    messages: list[dict[str, Any]] = Field(description="what would be sent")


class RunShown(BaseModel):
    dry_run: bool
    planned: list[PlannedShown] = Field(description="dry run: what would be asked (empty otherwise)")
    answers: list[AnswerShown] = Field(description="what was asked and kept (empty for a dry run)")
    skipped: list[SkipShown]
    summary: str


class ShapeShown(BaseModel):
    shape: str
    asked: int
    answered: int
    not_answered: int
    found: int
    clauses: int
    recall: float | None
    right: int
    invented: int


class ModelStanding(BaseModel):
    alias: str
    last_asked: datetime | None
    on_record: int = Field(description="tasks with an answer on record (in the task's current version)")
    finding_recall: float | None = Field(description="must-find clauses found on bug, seeded, review… tasks")
    findings: int
    finding_clauses: int
    inventions: int = Field(description="finding tasks where it claimed what it must not (NO FAULT on a bug)")
    false_alarms: int = Field(description="controls (correct code) answered with a fault")
    false_claims_believed: int = Field(description="false claims answered TRUE")
    false_claims_verified: int = Field(
        description="false claims people verified in its panel answers (verdicts)"
    )
    confidently_wrong: int = Field(description="false alarms + false claims believed + false claims verified")
    shapes: list[ShapeShown]


class SuiteStatus(BaseModel):
    tasks: int = Field(description="tasks a run covers when none are named")
    models: list[ModelStanding]


class AnswerList(BaseModel):
    answers: list[AnswerShown]


# ---- routes ------------------------------------------------------------------------------


def desk(svc: Services) -> SuiteDesk:
    """The suite's desk for one request: it holds no state (tasks are read afresh, answers are stored)."""
    return SuiteDesk(svc.db, svc.upstream, svc.settings.data_dir)


@router.get("/suite/tasks", response_model=TaskList)
async def list_tasks(request: Request, shape: str | None = None) -> Response:
    catalogue = await desk(services(request)).catalogue()
    tasks = [t for t in catalogue.tasks.values() if shape is None or t.shape == shape]
    return json_response(
        {"tasks": [_task(t) for t in tasks], "problems": [plain(p) for p in catalogue.problems]}
    )


@router.post(
    "/suite/run",
    response_model=RunShown,
    openapi_extra=json_body(RunRequest),
    responses={200: {"content": {EVENT_STREAM: {"schema": STREAM_EVENT}}}},
)
async def run(request: Request) -> Response:
    body = only_fields(await read_json_object(request, 100_000), {"models", "tasks", "dry_run", "stream"})
    models, tasks = _names(body, "models"), _names(body, "tasks")
    dry_run, stream = flag(body, "dry_run"), flag(body, "stream")
    suite = desk(services(request))
    plan = await suite.plan(models, tasks)
    if dry_run:
        return json_response(_dry_run(plan))
    caller = caller_of(request)
    if stream:
        keepalive = services(request).settings.keepalive_s
        return StreamedReply(_events(suite, plan, caller, keepalive), media_type=EVENT_STREAM, headers={})
    report = await suite.run(plan, caller=caller)
    return json_response(
        {
            "dry_run": False,
            "planned": [],
            "answers": [_answer(a) for a in report.answers],
            "skipped": [_skip(s) for s in report.skipped],
            "summary": report.summary(),
        }
    )


@router.get("/suite/status", response_model=SuiteStatus)
async def status(request: Request, model: str | None = None) -> Response:
    suite = desk(services(request))
    standings = await suite.standings(model)
    runnable = len((await suite.catalogue()).runnable())
    return json_response({"tasks": runnable, "models": [_standing(t) for t in standings]})


@router.get("/suite/answers", response_model=AnswerList)
async def answers(request: Request, model: str | None = None, task: str | None = None) -> Response:
    """The newest answer of each model to each task (in the task's current version), with its text."""
    suite = desk(services(request))
    model_ids = None if model is None else [(await suite.model(model)).id]
    found = [a for a in await suite.current_answers(model_ids) if task is None or a.task_id == task]
    return json_response({"answers": [_answer(a, text=True) for a in found]})


# ---- streaming -----------------------------------------------------------------------------


async def _events(suite: SuiteDesk, plan: RunPlan, caller: str, keepalive_s: float) -> AsyncIterator[bytes]:
    """`{"plan"}`, then `{"answer"}` or `{"skipped"}` per pair as it ends, `{"done"}`, `[DONE]`; keep-alive
    comments while a model thinks. The run goes on to the end if the caller leaves."""
    queue: asyncio.Queue[SuiteEvent | None] = asyncio.Queue()

    async def tell(event: SuiteEvent) -> None:
        queue.put_nowait(event)

    async def work() -> str:
        try:
            return (await suite.run(plan, caller=caller, on_event=tell)).summary()
        finally:
            queue.put_nowait(None)

    running = asyncio.create_task(work())
    per_model = Counter(ask.model.alias for ask in plan.asks)
    yield _sse({"plan": {"asks": len(plan.asks), "skipped": len(plan.skipped), "models": dict(per_model)}})
    while True:
        try:
            event = await asyncio.wait_for(queue.get(), keepalive_s)
        except TimeoutError:
            yield b": keep-alive\n\n"
            continue
        if event is None:
            break
        yield _sse({"skipped": _skip(event)} if isinstance(event, Skip) else {"answer": _answer(event)})
    try:
        summary = await running
    except (GatewayError, StoreError) as exc:
        yield _sse({"error": {"message": exc.message, "field": None}})
    except Exception:
        log.exception("a suite run failed after its reply began")
        yield _sse({"error": {"message": "the gateway failed during the run; see its log", "field": None}})
    else:
        yield _sse({"done": {"summary": summary}})
    yield b"data: [DONE]\n\n"


def _sse(data: dict[str, Any]) -> bytes:
    return b"data: " + orjson.dumps(data) + b"\n\n"


# ---- shapes ----------------------------------------------------------------------------------


def _names(body: dict[str, Any], name: str) -> list[str] | None:
    value = body.get(name)
    if value is None:
        return None
    if (
        not isinstance(value, list)
        or not value
        or len(value) > MAX_NAMES
        or not all(isinstance(v, str) and v.strip() and storable(v) and len(v) <= 200 for v in value)
    ):
        raise BadRequest(f"`{name}` must be a list of 1 to {MAX_NAMES} names", param=name)
    return [v.strip() for v in value]


def _task(task: Task) -> dict[str, Any]:
    return {
        "id": task.id,
        "title": task.title,
        "why": task.why,
        "shape": task.shape,
        "origin": task.origin,
        "draft": task.draft,
        "score_in": task.score_in,
        "min_answer_chars": task.min_answer_chars,
        "attach": [a.path for a in task.attachments],
        "must_find": [c.label for c in task.must_find],
        "must_not_claim": [c.label for c in task.must_not_claim],
        "source": task.source,
        "license": task.license,
    }


def _dry_run(plan: RunPlan) -> dict[str, Any]:
    planned = [
        {"model": a.model.alias, "task": a.task.id, "shape": a.task.shape, "messages": task_messages(a.task)}
        for a in plan.asks
    ]
    return {
        "dry_run": True,
        "planned": planned,
        "answers": [],
        "skipped": [_skip(s) for s in plan.skipped],
        "summary": f"would ask {len(planned)} task(s) of {len(plan.models)} model(s); nothing was sent",
    }


def _skip(skip: Skip) -> dict[str, Any]:
    return {"model": skip.alias, "task": skip.task_id, "why": skip.why}


def _answer(answer: SuiteAnswer, *, text: bool = False) -> dict[str, Any]:
    found = Score.from_json(answer.score)
    return {
        "model": answer.alias,
        "task": answer.task_id,
        "shape": answer.shape,
        "asked_at": answer.asked_at.isoformat(),
        "status": answer.status,
        "error_kind": answer.error_kind,
        "error": answer.error,
        "counted": found.counted,
        "why_not": found.why_not,
        "found": list(found.found),
        "missed": list(found.missed),
        "invented": list(found.invented),
        "recall": found.recall,
        "right": found.right,
        "seconds": answer.seconds,
        "tokens_in": answer.tokens_in,
        "tokens_out": answer.tokens_out,
        "answer": answer.answer if text else None,
    }


def _standing(tally: ModelTally) -> dict[str, Any]:
    found, clauses = tally.findings
    return {
        "alias": tally.alias,
        "last_asked": plain(tally.last_asked),
        "on_record": sum(t.asked for t in tally.shapes),
        "finding_recall": tally.finding_recall,
        "findings": found,
        "finding_clauses": clauses,
        "inventions": tally.inventions,
        "false_alarms": tally.false_alarms,
        "false_claims_believed": tally.false_claims_believed,
        "false_claims_verified": tally.verified_false,
        "confidently_wrong": tally.confidently_wrong,
        "shapes": [_shape(t) for t in tally.shapes],
    }


def _shape(tally: ShapeTally) -> dict[str, Any]:
    shown: dict[str, Any] = plain(tally)
    return {**shown, "not_answered": tally.not_answered, "recall": tally.recall}
