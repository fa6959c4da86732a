"""`panelgate ask`: ask a collection from the shell, answers streamed to stdout.

It is an ordinary OpenAI chat client of the gateway (`bench/<collection>`),
so what it sees is what any client sees. The answers go to stdout as they
arrive; the seat table (seat, alias, status, seconds, call id) goes to
stderr at the end, so the call ids for `panelgate verdict` are on the screen
without being in a file the answers were redirected to.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from panelgate.cli.asked_files import WHERE, keep, read_sent
from panelgate.cli.common import JsonFlag, Session, UrlOption, session, split_list
from panelgate.cli.failures import CliFailure, UsageProblem
from panelgate.cli.output import Output
from panelgate.cli.prompt import prompt_text

CHAT_PATH = "/v1/chat/completions"
NOTHING_TO_ASK = "nothing to ask: give the prompt as words, pipe it on stdin, or pass -f FILE"


def chat_body(
    model: str, prompt: str, system: str | None, nominees: list[str], stream: bool
) -> dict[str, Any]:
    messages = [{"role": "system", "content": system}] if system else []
    messages.append({"role": "user", "content": prompt})
    body: dict[str, Any] = {"model": model, "messages": messages, "stream": stream}
    if nominees:
        body["with"] = nominees
    return body


def model_id(collection: str, merged: bool, every: bool) -> str:
    if merged and every:
        raise UsageProblem("--merged and --all ask for different replies; pick one")
    suffix = ":merged" if merged else ":all" if every else ""
    return f"bench/{collection.removeprefix('bench/')}{suffix}"


def _delta_text(event: dict[str, Any]) -> str:
    choices = event.get("choices") or [{}]
    delta = choices[0].get("delta") or {}
    content = delta.get("content")
    return content if isinstance(content, str) else ""


def seat_table(output: Output, bench: dict[str, Any]) -> None:
    """The seats of a finished panel, on stderr."""
    seats = list(bench.get("seats") or [])
    if isinstance(bench.get("merger"), dict):
        seats.append(bench["merger"])
    rows = [
        (s.get("seat"), s.get("alias"), s.get("status"), f"{s.get('seconds', 0):.1f}", s.get("call"))
        for s in seats
    ]
    output.table(
        ("seat", "alias", "status", "seconds", "call id"),
        rows,
        title=f"panel {bench.get('panel', '?')} · {bench.get('collection', '')}",
        to_stderr=True,
        empty="the panel had no seats",
        whole=("call id",),
    )
    for skipped in bench.get("skipped") or []:
        output.note(f"not asked: {skipped.get('alias')} ({skipped.get('why')})")
    if bench.get("note"):
        output.note(f"note: {bench['note']}")
    output.note(
        "record a verdict with: panelgate verdict <call id> --useful | --not-useful, or judge the "
        f"whole panel: panelgate judge {bench.get('panel', '<panel>')}"
    )


def stream_panel(s: Session, body: dict[str, Any]) -> dict[str, Any]:
    from panelgate.cli.progress import PanelProgress  # Rich's live display: only a streamed panel needs it

    bench: dict[str, Any] | None = None
    with PanelProgress(s.output.err, body["model"]) as progress:
        for event in s.client.events(CHAT_PATH, body):
            text = _delta_text(event)
            if text:
                progress.emit(text, sys.stdout)
            if isinstance(event.get("bench"), dict):
                bench = event["bench"]
    if bench is None:
        raise CliFailure(
            "the stream ended before the panel finished; it still finishes and is recorded "
            "on the server (see the dashboard's recent panels)"
        )
    seat_table(s.output, bench)
    return bench


def ask(
    ctx: typer.Context,
    collection: Annotated[str, typer.Argument(help="the collection to ask, e.g. core")],
    words: Annotated[
        list[str] | None,
        typer.Argument(
            help="the prompt (piped stdin follows it); `-` alone: stdin is the prompt", show_default=False
        ),
    ] = None,
    files: Annotated[
        list[Path] | None,
        typer.Option(
            "--file",
            "-f",
            help=f"append this file to the prompt; kept in {WHERE} for `panelgate suite mine`",
            show_default=False,
        ),
    ] = None,
    no_keep: Annotated[
        bool, typer.Option("--no-keep", help="do not keep the -f files for `panelgate suite mine`")
    ] = False,
    system: Annotated[
        str | None, typer.Option("--system", help="a system message for every seat", show_default=False)
    ] = None,
    merged: Annotated[
        bool, typer.Option("--merged", help="one merged answer instead of every answer")
    ] = False,
    every: Annotated[
        bool, typer.Option("--all", help="every answer, whatever the collection's reply")
    ] = False,
    nominees: Annotated[
        list[str] | None,
        typer.Option(
            "--with", help="seat this model as an explorer (repeat or comma-separate)", show_default=False
        ),
    ] = None,
    as_json: JsonFlag = False,
    url: UrlOption = None,
) -> None:
    """Ask a collection; answers go to stdout as they arrive, the seat table to stderr."""
    model = model_id(collection, merged, every)
    prompt = prompt_text(words or [], files or [], sys.stdin)
    if not prompt.strip():
        raise UsageProblem(NOTHING_TO_ASK)
    sent = {} if no_keep else read_sent(files or [])
    with session(ctx, url, as_json) as s:
        body = chat_body(model, prompt, system, split_list(nominees), stream=not s.as_json)
        if s.as_json:
            reply = s.client.call("POST", CHAT_PATH, body=body)
            s.output.json(reply)
            bench = reply.get("bench") if isinstance(reply, dict) else None
        else:
            bench = stream_panel(s, body)
        keep(s.output, bench, sent)
