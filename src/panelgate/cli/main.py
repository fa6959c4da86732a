"""The `panelgate` command: `serve`, and a client of a running server for the rest.

Each client command lives in its own module and is registered here: a single
command with `app.command()`, a group of them (`endpoint add|list|rm`) as a
Typer sub-app. A new group is a new module plus one line in `GROUPS`.
Failures surface as `CliFailure`s and become exit codes in `run()` alone.
"""

from __future__ import annotations

import sys

import typer

from panelgate.cli import collections, config, endpoints, keys, models, onboard, scheduler, suite
from panelgate.cli.ask import ask
from panelgate.cli.common import Common, JsonFlag, UrlOption
from panelgate.cli.failures import CliFailure
from panelgate.cli.mcp import mcp
from panelgate.cli.pending import pending
from panelgate.cli.record import record
from panelgate.cli.serve import serve
from panelgate.cli.settings import settings
from panelgate.cli.status import status
from panelgate.cli.verdict import verdict

app = typer.Typer(no_args_is_help=True, add_completion=False)
app.command()(serve)
app.command()(mcp)

COMMANDS = (status, ask, verdict, record, pending, settings)
GROUPS = (
    ("endpoint", endpoints.group),
    ("model", models.group),
    ("collection", collections.group),
    ("config", config.group),
    ("key", keys.group),
    ("scheduler", scheduler.group),
    ("onboard", onboard.group),
    ("suite", suite.group),
)
LISTINGS = (
    ("endpoints", endpoints.list_endpoints),
    ("models", models.list_models),
    ("collections", collections.list_collections),
    ("keys", keys.list_keys),
)

for command in COMMANDS:
    app.command()(command)
for name, group in GROUPS:
    app.add_typer(group, name=name)
for name, listing in LISTINGS:
    app.command(name, help=f"Same as `{name.removesuffix('s')} list`.")(listing)


@app.callback()
def main(ctx: typer.Context, as_json: JsonFlag = False, url: UrlOption = None) -> None:
    """panelgate: ask a collection of models at once, keep every answer, judge each."""
    ctx.obj = Common(url=url, as_json=as_json)


def run() -> None:
    try:
        app()
    except CliFailure as failure:
        sys.stdout.flush()
        print(f"panelgate: {failure.message}", file=sys.stderr)
        sys.exit(failure.exit_code)
