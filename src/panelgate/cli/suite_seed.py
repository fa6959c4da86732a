"""`panelgate suite seed --repo NAME [--path DIR]`: plant bugs in a repository's functions, with controls.

The server does the work (it reads the repository where it runs), so
`--path` names a folder on the server's machine; a relative one is made
absolute here, which is right when the server runs on this machine. New
pairs are drafts, left out of runs until a person has checked them
(`--ready` skips that, knowingly).
"""

from __future__ import annotations

import os
from typing import Annotated, Any

import typer

from panelgate.cli.client import segment
from panelgate.cli.common import JsonFlag, Session, UrlOption, session, split_list


def seed(
    ctx: typer.Context,
    repo: Annotated[str, typer.Option("--repo", help="the repository's registered name")],
    path: Annotated[
        str | None,
        typer.Option("--path", help="register (or move) NAME to this folder on the server's machine first"),
    ] = None,
    count: Annotated[int, typer.Option("--count", min=1, max=50, help="bug/control pairs to write")] = 6,
    kinds: Annotated[
        list[str] | None,
        typer.Option(
            "--kind",
            help="only these kinds (repeatable, or comma-separated): comparison, and-or, returned-boolean, "
            "removed-not, off-by-one, number, swapped-arguments, removed-call, break-continue, "
            "augmented-assignment; default: every kind",
            show_default=False,
        ),
    ] = None,
    seed_number: Annotated[
        int | None, typer.Option("--seed", min=0, help="the same seed and code give the same pairs")
    ] = None,
    ready: Annotated[bool, typer.Option("--ready", help="write runnable tasks, not drafts")] = False,
    whole_file: Annotated[
        bool,
        typer.Option("--whole-file", help="show the whole module (100–400 lines), the fault anywhere in it"),
    ] = False,
    as_json: JsonFlag = False,
    url: UrlOption = None,
) -> None:
    """Plant one-token bugs in real functions of a repository and write each with its untouched control."""
    with session(ctx, url, as_json) as s:
        if path is not None:
            folder = os.path.abspath(os.path.expanduser(path))
            s.client.call("PUT", f"/api/suite/repos/{segment(repo)}", body={"path": folder})
        body: dict[str, Any] = {"repo": repo, "count": count, "ready": ready, "whole_file": whole_file}
        if kinds:
            body["kinds"] = split_list(kinds)
        if seed_number is not None:
            body["seed"] = seed_number
        _print(s, s.client.call("POST", "/api/suite/seed", body=body))


def _print(s: Session, found: dict[str, Any]) -> None:
    if s.as_json:
        s.output.json(found)
        return
    written = found["written"]
    rows = [
        (
            pair["bug"],
            pair["control"],
            pair["kind"],
            f"{pair['path']}: {pair['function']}",
            " or ".join(str(n) for n in pair["fault_lines"]),
        )
        for pair in written
    ]
    s.output.table(("bug", "control", "kind", "function", "fault line"), rows, empty="no pairs written")
    s.output.line(
        f"wrote {len(written)} of {found['asked']} pairs from {found['repo']} (seed {found['seed']})"
    )
    if len(written) < found["asked"]:
        s.output.note("the repository offers no more fair places for the kinds asked")
    if any(pair["draft"] for pair in written):
        s.output.note('drafts: check each pair, then set "draft": false in its task.json to have it run')
