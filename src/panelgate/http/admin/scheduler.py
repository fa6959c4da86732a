"""The scheduler: its mode, each job's switch, last run and next due time; runs on record; run now.

`PATCH /api/scheduler` changes the mode (`off`: nothing is sent, the
default; `log-only`: due runs are recorded as `would run`, nothing is
sent; `run`) and switches jobs on or off, audited; the process that took
the change applies it before answering, the others on their next tick. `POST
/api/scheduler/jobs/{name}/run` runs a job now because a person asked, in
any mode, and answers when it has ended.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Literal

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field
from starlette.responses import Response

from panelgate.core.errors import BadRequest
from panelgate.http.admin.schemas import Body, left_out
from panelgate.http.admin.shapes import only_fields, plain
from panelgate.http.body import json_body, read_json_object
from panelgate.http.panel_route import caller_of
from panelgate.http.responses import json_response
from panelgate.http.services import services
from panelgate.jobs.runner import SchedulerView
from panelgate.store.scheduler_book import RunRecord

router = APIRouter()
Mode = Literal["off", "log-only", "run"]


class SchedulerChange(Body):
    """`PATCH /api/scheduler`: what is given changes, the rest stays."""

    mode: Mode = left_out("off: nothing runs; log-only: due runs are recorded, nothing is sent; run")
    jobs: dict[str, bool] = left_out("job name → on (true) or off (false)")


class RunShown(BaseModel):
    job: str
    due_at: datetime = Field(description="the due time it ran for (when asked by a person: the moment asked)")
    holder: str = Field(description="the gateway process that ran it")
    mode: str
    asked_by: str | None = Field(description="who ran it by hand; null: it ran on schedule")
    started_at: datetime
    finished_at: datetime | None
    outcome: str = Field(description="running, ok, failed, timed out, stopped, abandoned or `would run`")
    detail: str


class JobShown(BaseModel):
    name: str
    summary: str
    schedule: str
    enabled: bool
    next_due: datetime | None = Field(description="null while the mode is off or the job is switched off")
    last_run: RunShown | None


class Runner(BaseModel):
    holder: str
    expires_at: datetime
    here: bool = Field(description="whether the process that answered holds the lease")


class SchedulerShown(BaseModel):
    mode: Mode
    mode_changed_at: datetime | None
    runner: Runner | None = Field(description="the process running the jobs (null: none holds the lease)")
    jobs: list[JobShown]


class Runs(BaseModel):
    runs: list[RunShown]


class OneRun(BaseModel):
    run: RunShown


@router.get("/scheduler", response_model=SchedulerShown)
async def show(request: Request) -> Response:
    return json_response(_shown(await services(request).scheduler.view()))


@router.patch("/scheduler", response_model=SchedulerShown, openapi_extra=json_body(SchedulerChange))
async def change(request: Request) -> Response:
    svc = services(request)
    body = only_fields(await read_json_object(request, 100_000), {"mode", "jobs"})
    jobs = body.get("jobs")
    if jobs is not None and not isinstance(jobs, dict):
        raise BadRequest("`jobs` must be an object of job names and true or false", param="jobs")
    await svc.db.scheduler.change(
        mode=body.get("mode"),
        jobs=jobs,
        known_jobs=[job.name for job in svc.scheduler.jobs],
        actor=caller_of(request),
        now=datetime.now(UTC),
    )
    await svc.scheduler.apply_now()
    return json_response(_shown(await svc.scheduler.view()))


@router.get("/scheduler/runs", response_model=Runs)
async def runs(request: Request, job: str | None = None, limit: int = 50) -> Response:
    found = await services(request).db.scheduler.runs(max(1, min(limit, 500)), job)
    return json_response({"runs": [_run(run) for run in found]})


@router.post("/scheduler/jobs/{name}/run", response_model=OneRun)
async def run_now(request: Request, name: str) -> Response:
    """Run the job now (any mode: a person asked) and answer with its run once it has ended."""
    run = await services(request).scheduler.run_now(name, caller_of(request))
    return json_response({"run": _run(run)})


def _run(run: RunRecord) -> dict[str, object]:
    shown: dict[str, object] = plain(run)
    return shown


def _shown(view: SchedulerView) -> dict[str, object]:
    lease = view.lease
    current = lease is not None and lease.expires_at > datetime.now(UTC)
    return {
        "mode": view.state.mode,
        "mode_changed_at": plain(view.state.mode_since),
        "runner": (
            {
                "holder": lease.holder,
                "expires_at": lease.expires_at.isoformat(),
                "here": lease.holder == view.holder,
            }
            if lease is not None and current
            else None
        ),
        "jobs": [
            {
                "name": job.job.name,
                "summary": job.job.summary,
                "schedule": job.job.schedule.describe(),
                "enabled": job.enabled,
                "next_due": plain(job.next_due),
                "last_run": None if job.last_run is None else _run(job.last_run),
            }
            for job in view.jobs
        ],
    }
