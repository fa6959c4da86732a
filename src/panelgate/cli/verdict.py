"""`panelgate verdict <call>`: say whether one seat's answer was useful.

Fields left out keep what an earlier verdict on the call said (the server
does that), so `--real` can be added later without repeating the note.
`--better-than CALL2` (repeatable) says this seat's answer beat CALL2's, a
seat of the same panel: a pairwise verdict. `--source claude-code` says
where the verdict comes from (the Record page filters on it; `cli` when not
given, so an agent that runs the command names itself). A seat that failed
is not judged; the server says so, and the command exits 1.
"""

from __future__ import annotations

from typing import Annotated, Any

import typer

from panelgate.cli.common import JsonFlag, UrlOption, session
from panelgate.cli.failures import UsageProblem

VERDICT_PATH = "/bench/verdict"
CLI_SOURCE = "cli"
"""A verdict's source when `--source` names none."""


def verdict_body(
    call: str,
    useful: bool,
    note: str | None,
    real: list[str] | None,
    false: list[str] | None,
    better_than: list[str] | None = None,
    source: str | None = None,
) -> dict[str, Any]:
    body: dict[str, Any] = {"call": call, "useful": useful}
    fields = (
        ("note", note),
        ("real", real),
        ("false", false),
        ("better_than", better_than),
        ("source", source),
    )
    for field, value in fields:
        if value is not None:
            body[field] = value
    return body


def verdict(
    ctx: typer.Context,
    call: Annotated[str, typer.Argument(help="the seat's call id, e.g. p20261130-101500-a1b2.member1")],
    useful: Annotated[
        bool | None, typer.Option("--useful/--not-useful", help="was the answer useful", show_default=False)
    ] = None,
    note: Annotated[str | None, typer.Option("--note", help="why, in a line", show_default=False)] = None,
    real: Annotated[
        list[str] | None,
        typer.Option(
            "--real", help="a claim you checked and found true (repeat for more)", show_default=False
        ),
    ] = None,
    false: Annotated[
        list[str] | None,
        typer.Option(
            "--false", help="a claim you checked and found false (repeat for more)", show_default=False
        ),
    ] = None,
    better_than: Annotated[
        list[str] | None,
        typer.Option(
            "--better-than",
            help="the call id of another seat of the same panel whose answer this one beat (repeat for more)",
            show_default=False,
        ),
    ] = None,
    source: Annotated[
        str,
        typer.Option(
            "--source", help="where the verdict comes from, e.g. claude-code (the Record page filters on it)"
        ),
    ] = CLI_SOURCE,
    as_json: JsonFlag = False,
    url: UrlOption = None,
) -> None:
    """Record a verdict on one call id: useful or not, a note, checked claims, the seats it beat."""
    if useful is None:
        raise UsageProblem("say whether the answer was useful: --useful or --not-useful")
    with session(ctx, url, as_json) as s:
        body = verdict_body(call, useful, note, real, false, better_than, source)
        answer = s.client.call("POST", VERDICT_PATH, body=body)
        judged = "useful" if useful else "not useful"
        if better_than:
            judged += f", better than {', '.join(better_than)}"
        outcome = {"unchanged": "already recorded", "superseded": "replaces the earlier verdict"}
        said = outcome.get(str(answer.get("result")), "recorded")
        s.output.result(answer, f"{call}: {judged} ({said})")
