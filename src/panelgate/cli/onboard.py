"""`panelgate onboard`: bring new models onto the bench, and follow the queue that does it.

`panelgate onboard ENDPOINT ID...` (short for `onboard add`) queues the
models and follows them with a progress bar each (on a terminal; a pipe
gets one line per model as it ends) until every one has ended: registered,
probed (four calls), and through the review suite. The queue runs in the
server, so leaving early (Ctrl-C) stops nothing: `onboard status` shows
where it stands. `--all` onboards every candidate of the endpoint.

An endpoint named like a subcommand (`status`, `candidates` ...) is onboarded
from with the long form: `panelgate onboard add status ID`.
"""

from __future__ import annotations

import time
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, Any

import typer
from typer.core import TyperGroup

from panelgate.cli.client import Client
from panelgate.cli.common import JsonFlag, Session, UrlOption, YesFlag, session
from panelgate.cli.confirm import confirm
from panelgate.cli.failures import CliFailure, UsageProblem

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID

DEFAULT_COMMAND = "add"
POLL_S = 1.0
ENDED = ("done", "unavailable", "failed", "stopped")
QUEUE_COLUMNS = ("id", "alias", "endpoint", "served id", "suite", "state", "step", "why")


class OnboardGroup(TyperGroup):
    """`onboard ENDPOINT ID...` runs `onboard add ENDPOINT ID...`: a first word that names no subcommand
    is the endpoint."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:  # ctx: the Context typer keeps private
        if args and args[0] not in self.commands and args[0] != "--help":
            args = [DEFAULT_COMMAND, *args]
        return super().parse_args(ctx, args)


group = typer.Typer(
    cls=OnboardGroup,
    no_args_is_help=True,
    help="Onboard new models (register, probe, suite), one at a time: "
    "`panelgate onboard ENDPOINT ID...`, `onboard status`, `onboard candidates`.",
)


class Suite(StrEnum):
    full = "full"
    quick = "quick"
    quick_adhoc = "quick+adhoc"


@group.command(DEFAULT_COMMAND)
def add(
    ctx: typer.Context,
    endpoint: Annotated[str, typer.Argument(help="the endpoint that serves them")],
    served_ids: Annotated[
        list[str] | None, typer.Argument(help="the ids it serves them as", show_default=False)
    ] = None,
    every: Annotated[bool, typer.Option("--all", help="every candidate the endpoint serves")] = False,
    alias: Annotated[
        str | None,
        typer.Option("--alias", help="its alias on the bench (one model only)", show_default=False),
    ] = None,
    suite: Annotated[
        Suite,
        typer.Option(
            "--suite",
            help="full: probe, then every suite task; quick: probe, then a few tasks of each shape; "
            "quick+adhoc: as quick, and it stays ad hoc",
        ),
    ] = Suite.full,
    probe_deadline: Annotated[
        float | None,
        typer.Option("--probe-deadline", help="seconds each probe call may take", show_default=False),
    ] = None,
    no_wait: Annotated[bool, typer.Option("--no-wait", help="queue them and return at once")] = False,
    as_json: JsonFlag = False,
    url: UrlOption = None,
) -> None:
    """Onboard models: each is registered, probed, and run through the review suite, one at a time."""
    if every == bool(served_ids):
        raise UsageProblem(
            "name the served ids to onboard, or pass --all for every candidate of the endpoint"
        )
    if alias is not None and len(served_ids or []) != 1:
        raise UsageProblem("--alias names one model; onboard the others without it, or one at a time")
    with session(ctx, url, as_json) as s:
        wanted = served_ids or _candidate_ids(s.client, endpoint)
        if not wanted:
            s.output.note(f"`{endpoint}` serves nothing the bench lacks (see `panelgate onboard candidates`)")
            return
        items = [{"endpoint": endpoint, "served_id": served_id} for served_id in wanted]
        if alias is not None:
            items[0]["alias"] = alias
        body: dict[str, Any] = {"items": items, "suite": suite.value}
        if probe_deadline is not None:
            body["probe_deadline_s"] = probe_deadline
        queued = s.client.call("POST", "/api/onboarding", body=body)
        if no_wait:
            _print_items(s, queued, queued["items"], empty="nothing was queued")
            return
        ended = follow(s, {item["id"] for item in queued["items"]}, batch=queued["batch"])
        _print_items(s, {"batch": queued["batch"], "items": ended}, ended, empty="nothing was queued")
        missed = [item for item in ended if item["state"] != "done"]
        if missed:
            names = ", ".join(f"{item['alias']} ({item['state']})" for item in missed)
            raise CliFailure(f"{len(missed)} of {len(ended)} models were not onboarded: {names}")


@group.command("status")
def status(
    ctx: typer.Context,
    wait: Annotated[bool, typer.Option("--wait", help="follow what waits until it has ended")] = False,
    as_json: JsonFlag = False,
    url: UrlOption = None,
) -> None:
    """The queue: each model's state, the step it is at, and why it ended as it did."""
    with session(ctx, url, as_json) as s:
        shown = s.client.call("GET", "/api/onboarding")
        if wait:
            follow(s, {item["id"] for item in shown["items"] if item["state"] not in ENDED})
            shown = s.client.call("GET", "/api/onboarding")
        worker = shown.get("worker")
        if not s.as_json and worker:
            s.output.note(f"worked by {worker['holder']}")
        _print_items(s, shown, shown["items"], empty="the onboarding queue is empty")


@group.command("candidates")
def candidates(
    ctx: typer.Context,
    endpoint: Annotated[
        str | None, typer.Option("--endpoint", help="only this endpoint's", show_default=False)
    ] = None,
    dismissed: Annotated[bool, typer.Option("--dismissed", help="the dismissed ones too")] = False,
    as_json: JsonFlag = False,
    url: UrlOption = None,
) -> None:
    """What each endpoint serves that the bench does not have yet."""
    with session(ctx, url, as_json) as s:
        found = s.client.call(
            "GET", "/api/onboarding/candidates", params={"endpoint": endpoint} if endpoint else None
        )
        if s.as_json:
            s.output.json(found)
            return
        for failure in found["unreachable"]:
            s.output.note(f"{failure['endpoint']}: {failure['why']}")
        shown = found["candidates"] + (found["dismissed"] if dismissed else [])
        rows = [
            (c["endpoint"], c["served_id"], c["alias"], c["queued"], c["dismissed_at"] is not None)
            for c in shown
        ]
        s.output.table(
            ("endpoint", "served id", "alias", "queued", "dismissed"),
            rows,
            empty="no candidates: the bench has everything its endpoints serve",
        )
        if found["dismissed"] and not dismissed:
            s.output.note(f"{len(found['dismissed'])} dismissed (--dismissed shows them)")


@group.command("dismiss")
def dismiss(
    ctx: typer.Context,
    endpoint: Annotated[str, typer.Argument(help="the endpoint that serves them")],
    served_ids: Annotated[list[str], typer.Argument(help="the ids to stop offering")],
    as_json: JsonFlag = False,
    url: UrlOption = None,
) -> None:
    """Stop offering served models as candidates (`undismiss` offers them again)."""
    _dismissal(ctx, "dismiss", endpoint, served_ids, as_json, url)


@group.command("undismiss")
def undismiss(
    ctx: typer.Context,
    endpoint: Annotated[str, typer.Argument(help="the endpoint that serves them")],
    served_ids: Annotated[list[str], typer.Argument(help="the ids to offer again")],
    as_json: JsonFlag = False,
    url: UrlOption = None,
) -> None:
    """Offer dismissed served models as candidates again."""
    _dismissal(ctx, "undismiss", endpoint, served_ids, as_json, url)


@group.command("stop")
def stop(ctx: typer.Context, yes: YesFlag = False, as_json: JsonFlag = False, url: UrlOption = None) -> None:
    """Stop the queue: what has not begun will not, the model being worked stops after its current call."""
    confirm("stop the onboarding queue", yes=yes)
    with session(ctx, url, as_json) as s:
        found = s.client.call("POST", "/api/onboarding/stop")
        s.output.result(
            found, f"stopped {found['stopped']} queued; {found['stopping']} stopping after its current call"
        )


@group.command("clear")
def clear(ctx: typer.Context, yes: YesFlag = False, as_json: JsonFlag = False, url: UrlOption = None) -> None:
    """Forget the models that have finished onboarding (they stay on the bench)."""
    confirm("clear the finished onboarding items", yes=yes)
    with session(ctx, url, as_json) as s:
        found = s.client.call("DELETE", "/api/onboarding")
        s.output.result(found, f"cleared {found['cleared']} finished items")


# ---- following the queue --------------------------------------------------------------


def follow(s: Session, ids: set[int], *, batch: str | None = None) -> list[dict[str, Any]]:
    """Poll the queue until every item of `ids` has ended; their last state. On a terminal a bar per item
    shows its step; elsewhere a line per item as it ends."""
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    params = {"batch": batch} if batch else None
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.fields[status]}"),
        TimeElapsedColumn(),
        console=s.output.err,
        disable=not s.output.err.is_terminal,
    ) as bars:
        tasks: dict[int, TaskID] = {}
        told: set[int] = set()
        while True:
            items = [
                i for i in s.client.call("GET", "/api/onboarding", params=params)["items"] if i["id"] in ids
            ]
            for item in items:
                _show(bars, tasks, item)
                if item["state"] in ENDED and item["id"] not in told:
                    told.add(item["id"])
                    if bars.disable and not s.as_json:
                        s.output.note(f"{item['alias']}: {item['state']}")
            if all(item["state"] in ENDED for item in items):
                return items
            time.sleep(POLL_S)


def _show(bars: Progress, tasks: dict[int, TaskID], item: dict[str, Any]) -> None:
    progress = item["progress"]
    if item["id"] not in tasks:
        tasks[item["id"]] = bars.add_task(item["alias"], total=progress["total"], status="")
    bars.update(tasks[item["id"]], completed=progress["done"], status=_status(item))


def _status(item: dict[str, Any]) -> str:
    """What a bar says: the step of a running item (`probe 2/4`), else its state."""
    if item["state"] != "running":
        return str(item["state"])
    return f"probe {len(item['probes'])}/4" if item["step"] == "probe" else str(item["step"])


# ---- helpers ------------------------------------------------------------------------------


def _candidate_ids(client: Client, endpoint: str) -> list[str]:
    found = client.call("GET", "/api/onboarding/candidates", params={"endpoint": endpoint})
    for failure in found["unreachable"]:
        raise CliFailure(f"{failure['endpoint']}: {failure['why']}")
    return [c["served_id"] for c in found["candidates"] if not c["queued"]]


def _print_items(s: Session, found: dict[str, Any], items: list[dict[str, Any]], *, empty: str) -> None:
    if s.as_json:
        s.output.json(found)
        return
    rows = [
        (item["id"], item["alias"], item["endpoint"], item["served_id"], item["suite"], item["state"],
         item["step"], item["why"])
        for item in items
    ]  # fmt: skip
    s.output.table(QUEUE_COLUMNS, rows, empty=empty)


def _dismissal(
    ctx: typer.Context, action: str, endpoint: str, served_ids: list[str], as_json: bool, url: str | None
) -> None:
    with session(ctx, url, as_json) as s:
        body = {"endpoint": endpoint, "served_ids": served_ids}
        found = s.client.call("POST", f"/api/onboarding/candidates/{action}", body=body)
        changed = ", ".join(found["changed"]) or "nothing (as asked already)"
        s.output.result(found, f"{action}ed on {endpoint}: {changed}")
