"""`panelgate suite import-bugs FILE.jsonl | --url URL`: real fixed bugs as bug/control task pairs.

The server does the work (it writes the tasks into its data folder), so
FILE and `--checkout` name places on the server's machine; relative ones
are made absolute here, which is right when the server runs on this
machine. `--url` is the only way anything is fetched from the network.
New pairs are drafts until a person has checked them (`--ready` skips that).
"""

from __future__ import annotations

import os
from typing import Annotated, Any

import typer

from panelgate.cli.common import JsonFlag, Session, UrlOption, session
from panelgate.cli.failures import UsageProblem


def import_bugs(
    ctx: typer.Context,
    file: Annotated[
        str | None, typer.Argument(help="a JSON Lines file of fix records", show_default=False)
    ] = None,
    from_url: Annotated[
        str | None,
        typer.Option("--from", help="fetch the records from this URL instead (needs the network)"),
    ] = None,
    checkout: Annotated[
        str | None,
        typer.Option("--checkout", help="a folder holding the project at the fix's base commit"),
    ] = None,
    ready: Annotated[bool, typer.Option("--ready", help="write runnable tasks, not drafts")] = False,
    as_json: JsonFlag = False,
    url: UrlOption = None,
) -> None:
    """Turn records of real one-line-ish fixes into a bug task (before) and its control (after)."""
    if (file is None) == (from_url is None):
        raise UsageProblem("name a records file, or --from URL to fetch them; one of the two")
    body: dict[str, Any] = {"ready": ready}
    if file is not None:
        body["file"] = _absolute(file)
    if from_url is not None:
        body["url"] = from_url
    if checkout is not None:
        body["checkout"] = _absolute(checkout)
    with session(ctx, url, as_json) as s:
        _print(s, s.client.call("POST", "/api/suite/import-bugs", body=body))


def _absolute(path: str) -> str:
    return os.path.abspath(os.path.expanduser(path))


def _print(s: Session, found: dict[str, Any]) -> None:
    if s.as_json:
        s.output.json(found)
        return
    written = found["written"]
    rows = [
        (pair["bug"], pair["control"], pair["path"], " or ".join(str(n) for n in pair["fault_lines"]))
        for pair in written
    ]
    s.output.table(("bug", "control", "file", "fault line"), rows, empty="no pairs written")
    rejected = [(r["record"], r["kind"], r["why"]) for r in found["rejected"]]
    if rejected:
        s.output.table(("rejected record", "kind", "why"), rejected, empty="")
    s.output.line(f"read {found['read']} records: wrote {len(written)} pairs, rejected {len(rejected)}")
    if any(pair["draft"] for pair in written):
        s.output.note('drafts: check each pair, then set "draft": false in its task.json to have it run')
