"""`panelgate config export|import`: everything a person edits, as one YAML file.

The file carries endpoints (by key name, never a key), models, collections
and gateway settings, so a bench moves to another server, or into git, in
two commands. Import adds and updates; the server checks the whole file
before it changes anything.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from panelgate.cli.common import JsonFlag, UrlOption, YesFlag, session
from panelgate.cli.confirm import confirm
from panelgate.cli.failures import UsageProblem

group = typer.Typer(no_args_is_help=True, help="The editable configuration as one YAML file.")


@group.command("export")
def export_config(
    ctx: typer.Context,
    to_file: Annotated[
        Path | None, typer.Option("--output", "-o", help="write here instead of stdout", show_default=False)
    ] = None,
    as_json: JsonFlag = False,
    url: UrlOption = None,
) -> None:
    """Print (or write) the configuration as YAML (as JSON with --json)."""
    with session(ctx, url, as_json) as s:
        text = s.client.send("GET", "/api/config").text
        if s.as_json:
            import yaml  # only `--json` reads the YAML here; the server parses what is imported

            text = json.dumps(yaml.safe_load(text), indent=2, ensure_ascii=False, default=str) + "\n"
        if to_file is None:
            s.output.write(text)
            return
        try:
            to_file.write_text(text, encoding="utf-8")
        except OSError as error:
            raise UsageProblem(f"cannot write {to_file}: {error.strerror or error}") from None
        s.output.note(f"wrote {to_file}")


def _summary(imported: object) -> str:
    if not isinstance(imported, dict):
        return "imported"
    parts = [
        f"{section}: " + ", ".join(f"{n} {what}" for what, n in counts.items())
        for section, counts in imported.items()
        if isinstance(counts, dict)
    ]
    return "imported — " + "; ".join(parts) if parts else "imported"


@group.command("import")
def import_config(
    ctx: typer.Context,
    from_file: Annotated[Path, typer.Argument(help="a file written by `panelgate config export`")],
    yes: YesFlag = False,
    as_json: JsonFlag = False,
    url: UrlOption = None,
) -> None:
    """Add and update endpoints, models, collections and settings from a YAML file."""
    try:
        text = from_file.read_text(encoding="utf-8")
    except OSError as error:
        raise UsageProblem(f"cannot read {from_file}: {error.strerror or error}") from None
    confirm(f"import {from_file} into the server's configuration", yes=yes)
    with session(ctx, url, as_json) as s:
        answer = s.client.call("POST", "/api/config", body={"yaml": text})
        s.output.result(answer, _summary(answer.get("imported")))
