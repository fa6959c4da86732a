"""`panelgate suite mine PANEL`: a judged panel's verified claims, as draft claim tasks on the server.

The files the panel saw exist only where `panelgate ask -f` kept them, on
this machine, so this command sends them with the panel id; the server
finds the claims in the panel's verdicts and writes the tasks. Drafts stay
out of runs until a person reads each and sets `"draft": false`.
"""

from __future__ import annotations

from typing import Annotated, Any

import typer

from panelgate.cli.asked_files import kept_file, read_kept
from panelgate.cli.common import JsonFlag, Session, UrlOption, session
from panelgate.cli.failures import Refused


def mine(
    ctx: typer.Context,
    panel: Annotated[str, typer.Argument(help="the panel id, e.g. p20261130-101500-a1b2")],
    as_json: JsonFlag = False,
    url: UrlOption = None,
) -> None:
    """Turn a judged panel's real and false claims into draft claim tasks, its -f files as fixtures."""
    files = read_kept(panel)
    with session(ctx, url, as_json) as s:
        try:
            found = s.client.call("POST", "/api/suite/mine", body={"panel": panel, "files": files or {}})
        except Refused as refused:
            if files is None and "kept no files" in refused.message:
                raise Refused(f"{refused.message} (looked for {kept_file(panel)})", refused.status) from None
            raise
        _print(s, found)


def _print(s: Session, found: dict[str, Any]) -> None:
    if s.as_json:
        s.output.json(found)
        return
    rows = [
        (task["id"], task["truth"], "written" if fresh else "already mined", task["alias"], task["claim"])
        for fresh, tasks in ((True, found["written"]), (False, found["existing"]))
        for task in tasks
    ]
    s.output.table(("task", "answer", "state", "from", "claim"), rows, empty="no tasks mined")
    s.output.line(
        f"mined {len(found['written'])} new draft task(s) from panel {found['panel']}, "
        f"fixtures: {', '.join(found['fixtures'])}"
    )
    for warning in found["warnings"]:
        s.output.note(warning)
    if found["written"]:
        s.output.note('drafts: check each task, then set "draft": false in its task.json to have it run')
