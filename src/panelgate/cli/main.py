"""The `panelgate` command: `serve`, and a client of a running server for the rest.

Each client command lives in its own module and is registered here: a single
command with `app.command()`, a group of them (`endpoint add|list|rm`) as a
Typer sub-app. A new group is a new module plus one line in `GROUPS`.
Failures surface as `CliFailure`s and become exit codes in `run()` alone.

Typer turns every registered function into a click command each time the
program starts, reading its signature: for the fifty or so here that is
about 50 ms of CPU on every run. So a run that names its command registers
that command alone; one that lists them (`--help`, no command, a misspelt
one) registers all of them.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Annotated

import typer

from panelgate import __version__
from panelgate.cli import collections, config, discover, endpoints, keys, models, onboard, scheduler, suite
from panelgate.cli.ask import ask
from panelgate.cli.common import Common, JsonFlag, UrlOption
from panelgate.cli.connect import connect
from panelgate.cli.failures import CliFailure
from panelgate.cli.hubs import group as hub_group
from panelgate.cli.judge import judge
from panelgate.cli.mcp import mcp
from panelgate.cli.pending import pending
from panelgate.cli.record import record
from panelgate.cli.serve import serve
from panelgate.cli.settings import settings
from panelgate.cli.status import status
from panelgate.cli.verdict import verdict

COMMANDS = (serve, mcp, status, ask, verdict, judge, record, pending, settings, connect)
GROUPS = (
    ("endpoint", endpoints.group),
    ("model", models.group),
    ("collection", collections.group),
    ("config", config.group),
    ("key", keys.group),
    ("scheduler", scheduler.group),
    ("onboard", onboard.group),
    ("suite", suite.group),
    ("hub", hub_group),
    ("discover", discover.group),
)
LISTINGS = (
    ("endpoints", endpoints.list_endpoints),
    ("models", models.list_models),
    ("collections", collections.list_collections),
    ("keys", keys.list_keys),
)


def show_version(asked: bool) -> None:
    if asked:
        print(f"panelgate {__version__}")
        raise typer.Exit()


VersionFlag = Annotated[
    bool, typer.Option("--version", callback=show_version, is_eager=True, help="print the version and exit")
]


def main(
    ctx: typer.Context, as_json: JsonFlag = False, url: UrlOption = None, version: VersionFlag = False
) -> None:
    """panelgate: ask a collection of models at once, keep every answer, judge each."""
    ctx.obj = Common(url=url, as_json=as_json)


def command_named(args: Sequence[str]) -> str | None:
    """The command `args` run, read past the root's own options; None when that is not certain
    (no command, `--help`, or an option this does not know, which may take a value)."""
    rest = iter(args)
    for arg in rest:
        if arg == "--url":
            next(rest, None)
        elif arg != "--json" and not arg.startswith("--url="):
            return None if arg.startswith("-") else arg
    return None


def build_app(only: str | None = None) -> typer.Typer:
    """The program with every command, or with the command named `only` alone when there is one."""
    names = {command.__name__ for command in COMMANDS} | {name for name, _ in (*GROUPS, *LISTINGS)}
    every = only not in names
    app = typer.Typer(no_args_is_help=True, add_completion=False)
    app.callback()(main)
    for command in COMMANDS:
        if every or command.__name__ == only:
            app.command()(command)
    for name, group in GROUPS:
        if every or name == only:
            app.add_typer(group, name=name)
    for name, listing in LISTINGS:
        if every or name == only:
            app.command(name, help=f"Same as `{name.removesuffix('s')} list`.")(listing)
    return app


def run() -> None:
    try:
        build_app(only=command_named(sys.argv[1:]))()
    except CliFailure as failure:
        sys.stdout.flush()
        print(f"panelgate: {failure.message}", file=sys.stderr)
        sys.exit(failure.exit_code)
