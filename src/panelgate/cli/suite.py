"""`panelgate suite tasks|run|status` (and `seed`, `mine`, `import-bugs`): tasks, runs and standings.

A run is the server's work (it holds the models' keys and the record); the
command follows it as server-sent events and, on a terminal, shows a
progress bar per model on stderr while the answers come in, then a table of
how each answer scored. `--dry-run` prints what would be sent and sends
nothing. Task folders the server could not read are named on stderr, with
the file and field at fault, next to the tasks that loaded.
"""

from __future__ import annotations

from types import TracebackType
from typing import TYPE_CHECKING, Annotated, Any

import typer

from panelgate.cli.common import JsonFlag, Session, UrlOption, session, split_list
from panelgate.cli.failures import CliFailure
from panelgate.cli.output import Output
from panelgate.cli.suite_import import import_bugs
from panelgate.cli.suite_mine import mine
from panelgate.cli.suite_seed import seed

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress, TaskID

group = typer.Typer(no_args_is_help=True, help="The review suite: tasks, runs, and where each model stands.")
group.command("seed")(seed)
group.command("mine")(mine)
group.command("import-bugs")(import_bugs)
RUN_PATH = "/api/suite/run"


@group.command("tasks")
def tasks(
    ctx: typer.Context,
    shape: Annotated[str | None, typer.Option("--shape", help="only tasks of this shape")] = None,
    as_json: JsonFlag = False,
    url: UrlOption = None,
) -> None:
    """Every task (the starter pack and the data folder's own), and any task folder that would not load."""
    with session(ctx, url, as_json) as s:
        found = s.client.call("GET", "/api/suite/tasks", params={"shape": shape} if shape else None)
        if s.as_json:
            s.output.json(found)
            return
        rows = [
            (t["id"], t["shape"], t["origin"] + (", draft" if t["draft"] else ""), t["title"])
            for t in found["tasks"]
        ]
        s.output.table(("task", "shape", "from", "title"), rows, empty="no tasks")
        _problems(s.output, found["problems"])


@group.command("run")
def run(
    ctx: typer.Context,
    models: Annotated[
        list[str] | None,
        typer.Option(
            "--model",
            "-m",
            help="ask this model (repeat or comma-separate; default: every model the suite asks on its own)",
            show_default=False,
        ),
    ] = None,
    task_ids: Annotated[
        list[str] | None,
        typer.Option(
            "--task",
            "-t",
            help="ask this task (repeat or comma-separate; default: every task that is not a draft)",
            show_default=False,
        ),
    ] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="print what would be sent; send nothing")
    ] = False,
    as_json: JsonFlag = False,
    url: UrlOption = None,
) -> None:
    """Ask models the suite's tasks; each answer is scored and kept by the server."""
    body: dict[str, Any] = {"models": split_list(models) or None, "tasks": split_list(task_ids) or None}
    body = {name: value for name, value in body.items() if value is not None}
    with session(ctx, url, as_json) as s:
        if dry_run:
            _print_dry_run(s, s.client.call("POST", RUN_PATH, body={**body, "dry_run": True}))
            return
        found = _follow(s, body)
        if s.as_json:
            s.output.json(found)
            return
        _answer_table(s.output, found["answers"])
        for skip in found["skipped"]:
            s.output.note(f"not asked: {skip['model']} · {skip['task']} ({skip['why']})")
        s.output.note(found["summary"])


@group.command("status")
def status(
    ctx: typer.Context,
    model: Annotated[str | None, typer.Option("--model", "-m", help="only this model")] = None,
    as_json: JsonFlag = False,
    url: UrlOption = None,
) -> None:
    """Each model's standing: findings, inventions, false alarms, confidently wrong; then per shape."""
    with session(ctx, url, as_json) as s:
        found = s.client.call("GET", "/api/suite/status", params={"model": model} if model else None)
        if s.as_json:
            s.output.json(found)
            return
        _status_tables(s.output, found)


# ---- a run, followed ---------------------------------------------------------------------


class RunProgress:
    """A bar per model (and one for the run) on stderr, on a terminal only; use as a context manager."""

    def __init__(self, console: Console) -> None:
        self._progress: Progress | None = None
        if console.is_terminal:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            self._progress = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                console=console,
                transient=True,
            )
        self._bars: dict[str, TaskID] = {}

    def __enter__(self) -> RunProgress:
        if self._progress is not None:
            self._progress.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        if self._progress is not None:
            self._progress.stop()

    def planned(self, per_model: dict[str, int]) -> None:
        if self._progress is None:
            return
        self._bars["*"] = self._progress.add_task("suite", total=sum(per_model.values()))
        for alias, count in per_model.items():
            self._bars[alias] = self._progress.add_task(f"  {alias}", total=count)

    def done(self, alias: str) -> None:
        if self._progress is None:
            return
        for name in ("*", alias):
            if name in self._bars:
                self._progress.advance(self._bars[name])


def _follow(s: Session, body: dict[str, Any]) -> dict[str, Any]:
    """Run with `stream`, advancing the bars as answers come; what the server's whole reply would hold."""
    answers: list[dict[str, Any]] = []
    skipped: list[dict[str, Any]] = []
    summary: str | None = None
    with RunProgress(s.output.err) as progress:
        for event in s.client.events(RUN_PATH, {**body, "stream": True}):
            if "plan" in event:
                progress.planned(event["plan"]["models"])
            elif "answer" in event:
                answers.append(event["answer"])
                progress.done(event["answer"]["model"])
            elif "skipped" in event:
                skipped.append(event["skipped"])
                progress.done(event["skipped"]["model"])
            elif "done" in event:
                summary = event["done"]["summary"]
    if summary is None:
        raise CliFailure(
            "the stream ended before the run finished; it goes on on the server, and what it asks is kept "
            "(`panelgate suite status`)"
        )
    return {"dry_run": False, "planned": [], "answers": answers, "skipped": skipped, "summary": summary}


# ---- printing --------------------------------------------------------------------------------


def _problems(output: Output, problems: list[dict[str, Any]]) -> None:
    for problem in problems:
        where = f"{problem['path']} ({problem['field']})" if problem["field"] else problem["path"]
        output.note(f"not loaded: {where}: {problem['message']}")


def _print_dry_run(s: Session, found: dict[str, Any]) -> None:
    if s.as_json:
        s.output.json(found)
        return
    for planned in found["planned"]:
        s.output.write(f"===== {planned['model']} · {planned['task']} ({planned['shape']}) =====\n")
        for message in planned["messages"]:
            s.output.write(f"{message['content']}\n\n")
    for skip in found["skipped"]:
        s.output.note(f"would not ask: {skip['model']} · {skip['task']} ({skip['why']})")
    s.output.note(found["summary"])


def _result(answer: dict[str, Any]) -> str:
    if not answer["counted"]:
        return f"not counted: {answer['why_not']}"
    if answer["right"]:
        return "right"
    parts = [f"missed {', '.join(answer['missed'])}"] if answer["missed"] else []
    parts += [f"claimed {', '.join(answer['invented'])}"] if answer["invented"] else []
    return "; ".join(parts)


def _answer_table(output: Output, answers: list[dict[str, Any]]) -> None:
    rows = [(a["model"], a["task"], a["shape"], _result(a), f"{a['seconds']:.1f}") for a in answers]
    output.table(("model", "task", "shape", "result", "seconds"), rows, empty="nothing was asked")


def _share(value: float | None) -> str | None:
    return None if value is None else f"{value:.0%}"


def _status_tables(output: Output, found: dict[str, Any]) -> None:
    models = found["models"]
    rows = [
        (
            m["alias"],
            f"{m['on_record']} of {found['tasks']}",
            _share(m["finding_recall"]),
            m["inventions"],
            m["false_alarms"],
            m["false_claims_believed"],
            m["false_claims_verified"],
            m["confidently_wrong"],
            m["last_asked"],
        )
        for m in models
    ]
    columns = (
        "model",
        "tasks",
        "findings",
        "inventions",
        "false alarms",
        "false claims believed",
        "false claims in panels",
        "confidently wrong",
        "last asked",
    )
    output.table(columns, rows, empty="no suite answers on record yet (panelgate suite run)")
    shape_rows = [
        (m["alias"], t["shape"], t["asked"], t["answered"], _share(t["recall"]), t["right"], t["invented"])
        for m in models
        for t in m["shapes"]
    ]
    if shape_rows:
        output.table(
            ("model", "shape", "asked", "answered", "recall", "right", "invented"),
            shape_rows,
            empty="",
            title="per shape",
        )
