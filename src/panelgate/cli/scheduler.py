"""`panelgate scheduler show|mode|on|off|run`: the scheduled jobs (health probes, auto-retire).

A fresh install's scheduler is `off` (it sends nothing); `log-only`
records what would run; `run` runs the jobs at their due times. `run JOB`
runs one now, whatever the mode, and prints how it ended.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any

import typer

from panelgate.cli.common import JsonFlag, Session, UrlOption, session

group = typer.Typer(no_args_is_help=True, help="Scheduled jobs: health probes and auto-retire.")
JobArgument = Annotated[str, typer.Argument(help="the job's name (see `panelgate scheduler show`)")]


class Mode(StrEnum):
    off = "off"
    log_only = "log-only"
    run = "run"


@group.command("show")
def show(ctx: typer.Context, as_json: JsonFlag = False, url: UrlOption = None) -> None:
    """The mode, and each job: on or off, its schedule, next due time, last run."""
    with session(ctx, url, as_json) as s:
        _print(s, s.client.call("GET", "/api/scheduler"))


@group.command("mode")
def mode(
    ctx: typer.Context,
    new_mode: Annotated[Mode, typer.Argument(metavar="off|log-only|run", help="the new mode")],
    as_json: JsonFlag = False,
    url: UrlOption = None,
) -> None:
    """Set the mode: off (sends nothing), log-only (records what would run), run."""
    with session(ctx, url, as_json) as s:
        _print(s, s.client.call("PATCH", "/api/scheduler", body={"mode": new_mode.value}))


@group.command("on")
def switch_on(ctx: typer.Context, job: JobArgument, as_json: JsonFlag = False, url: UrlOption = None) -> None:
    """Switch a job on."""
    with session(ctx, url, as_json) as s:
        _print(s, s.client.call("PATCH", "/api/scheduler", body={"jobs": {job: True}}))


@group.command("off")
def switch_off(
    ctx: typer.Context, job: JobArgument, as_json: JsonFlag = False, url: UrlOption = None
) -> None:
    """Switch a job off."""
    with session(ctx, url, as_json) as s:
        _print(s, s.client.call("PATCH", "/api/scheduler", body={"jobs": {job: False}}))


@group.command("run")
def run_now(ctx: typer.Context, job: JobArgument, as_json: JsonFlag = False, url: UrlOption = None) -> None:
    """Run a job now (in any mode) and print how it ended."""
    with session(ctx, url, as_json) as s:
        found = s.client.call("POST", f"/api/scheduler/jobs/{job}/run")
        run = found["run"]
        s.output.result(found, f"{run['job']}: {run['outcome']}: {run['detail']}")


def _print(s: Session, found: dict[str, Any]) -> None:
    if s.as_json:
        s.output.json(found)
        return
    runner = found.get("runner")
    s.output.fields([("mode", found["mode"]), ("runner", runner["holder"] if runner else None)])
    rows = [
        (
            job["name"],
            job["enabled"],
            job["schedule"],
            job["next_due"],
            None
            if job["last_run"] is None
            else f"{job['last_run']['outcome']} ({job['last_run']['due_at']})",
        )
        for job in found["jobs"]
    ]
    s.output.table(("job", "on", "schedule", "next due", "last run"), rows, empty="no jobs")
