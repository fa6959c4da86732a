"""The options every client command takes, before or after its name.

`--json` and `--url` are declared on the root callback (`panelgate --json
models ...`) and again on each command (`panelgate models --json`); a
command asks `session(ctx, url, as_json)` for its client and output, which
merges the two places, the command's own winning.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Annotated

import typer

from panelgate.cli.client import Client, Connection
from panelgate.cli.output import Output

JsonFlag = Annotated[bool, typer.Option("--json", help="print the server's JSON answer instead of a table")]
UrlOption = Annotated[
    str | None,
    typer.Option(
        "--url", help="the server (default PANELGATE_URL, else http://127.0.0.1:8122)", show_default=False
    ),
]
YesFlag = Annotated[bool, typer.Option("--yes", "-y", help="do not ask for confirmation")]


@dataclass(frozen=True)
class Common:
    """The root callback's `--url` and `--json`, kept in the click context."""

    url: str | None = None
    as_json: bool = False


@dataclass(frozen=True)
class Session:
    client: Client
    output: Output

    @property
    def as_json(self) -> bool:
        return self.output.as_json


@contextmanager
def session(ctx: typer.Context, url: str | None, as_json: bool) -> Iterator[Session]:
    """The client and output of one command run, with root and command options merged."""
    root = ctx.find_object(Common) or Common()
    yield Session(
        client=Client(Connection.from_env(url or root.url)), output=Output(as_json=as_json or root.as_json)
    )


def split_list(values: list[str] | None) -> list[str]:
    """Repeated options and comma lists alike: `--add a --add b,c` → `[a, b, c]`."""
    return [part.strip() for value in values or [] for part in value.split(",") if part.strip()]
