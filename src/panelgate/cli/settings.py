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
    explorer_rule: Annotated[
        str | None,
        typer.Option(
            "--explorer-rule",
            help="evidence (the record decides who explores) or stalest (least recently seated first)",
            show_default=False,
        ),
    ] = None,
    explorer_floor: Annotated[
        int | None,
        typer.Option(
            "--explorer-floor",
            help="every model sits at least once in this many panels (0: the bench's size)",
            show_default=False,
        ),
    ] = None,
    decision_model: Annotated[
        str | None,
        typer.Option(
            "--decision-model",
            help='a bench model asked each panel\'s shape when explorers sit ("" for none: the rules decide)',
            show_default=False,
        ),
    ] = None,
    retry_empty_length: Annotated[
        bool | None,
        typer.Option(
            "--retry-empty-length/--no-retry-empty-length",
            help="ask an empty answer cut at the token limit again, with twice the budget",
            show_default=False,
        ),
    ] = None,
    detect_quota_notices: Annotated[
        bool | None,
        typer.Option(
            "--detect-quota-notices/--no-detect-quota-notices",
            help="count a short 200 quota or credit notice as that failure",
            show_default=False,
        ),
    ] = None,
    swap_alerts: Annotated[
        bool | None,
        typer.Option(
            "--swap-alerts/--no-swap-alerts",
            help="raise an action-needed item when a model keeps answering as another",
            show_default=False,
        ),
    ] = None,
    skip_slow_on_long_prompts: Annotated[
        bool | None,
        typer.Option(
            "--skip-slow-on-long-prompts/--no-skip-slow-on-long-prompts",
            help="on a long prompt, explorers the speed test found failing or far slower sit out",
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
        "explorer_rule": explorer_rule,
        "explorer_floor": explorer_floor,
        "decision_model": decision_model,
        "retry_empty_length": retry_empty_length,
        "detect_quota_notices": detect_quota_notices,
        "swap_alerts": swap_alerts,
        "skip_slow_on_long_prompts": skip_slow_on_long_prompts,
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
    """A setting as a person reads it: what no decision model and a floor of 0 mean."""
    if name == "decision_model" and not value:
        return "none: the shape rules decide"
    if name == "explorer_floor" and value == 0:
        from panelgate.core.explorer_floor import MIN_FLOOR  # only when it is shown

        return f"0: as many panels as the bench has models to explore, at least {MIN_FLOOR}"
    return value
