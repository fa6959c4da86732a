"""`panelgate settings`: the gateway's limits, shown, or changed one by one.

Only the options given change; the rest stay as they are. The server checks
the ranges and says which value it refused.
"""

from __future__ import annotations

from typing import Annotated

import typer

from panelgate.cli.common import JsonFlag, UrlOption, session


def settings(
    ctx: typer.Context,
    max_calls: Annotated[int | None, typer.Option("--max-calls", help="seats a panel has at most")] = None,
    max_explorers: Annotated[
        int | None, typer.Option("--max-explorers", help="explorer seats among them at most")
    ] = None,
    seat_deadline_s: Annotated[
        float | None, typer.Option("--seat-deadline", help="seconds a seat may take")
    ] = None,
    shadow_calls_per_day: Annotated[
        int | None, typer.Option("--shadow-calls-per-day", help="route shadow calls a UTC day")
    ] = None,
    decision_model: Annotated[
        str | None,
        typer.Option(
            "--decision-model",
            help='a bench model asked each panel\'s shape when explorers sit ("" for none: the rules decide)',
            show_default=False,
        ),
    ] = None,
    as_json: JsonFlag = False,
    url: UrlOption = None,
) -> None:
    """Show the gateway's limits, or change the ones given."""
    change = {
        "max_calls": max_calls,
        "max_explorers": max_explorers,
        "seat_deadline_s": seat_deadline_s,
        "shadow_calls_per_day": shadow_calls_per_day,
        "decision_model": decision_model,
    }
    given = {name: value for name, value in change.items() if value is not None}
    with session(ctx, url, as_json) as s:
        if given:
            found = s.client.call("PATCH", "/api/settings/gateway", body=given)
        else:
            found = s.client.call("GET", "/api/settings/gateway")
        if s.as_json:
            s.output.json(found)
            return
        s.output.fields(
            [(name.replace("_", " "), _shown(name, value)) for name, value in found["gateway"].items()]
        )


def _shown(name: str, value: object) -> object:
    """A setting as a person reads it: no decision model means the rules decide."""
    return "none: the shape rules decide" if name == "decision_model" and not value else value
