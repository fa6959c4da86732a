"""`panelgate model add|list|rename|role|ad-hoc|retire|restore`: the models on the bench.

Retiring keeps every verdict and answer and can be undone with `restore`,
which also puts the model back into the collections it sat in. A rename
keeps the model's record and its seats in collections under the new alias.
"""

from __future__ import annotations

from typing import Annotated, Any

import typer

from panelgate.cli.client import segment
from panelgate.cli.common import JsonFlag, UrlOption, YesFlag, session
from panelgate.cli.confirm import confirm

group = typer.Typer(no_args_is_help=True, help="Models on the bench.")
LIST_COLUMNS = (
    "alias",
    "served id",
    "endpoint",
    "role",
    "ad hoc",
    "context",
    "max output",
    "vision",
    "tools",
)


@group.command("add")
def add_model(
    ctx: typer.Context,
    served_id: Annotated[str, typer.Argument(help="the id the endpoint serves it under")],
    endpoint: Annotated[
        str | None,
        typer.Option(
            "--endpoint",
            help="the endpoint that serves it (default: the default endpoint)",
            show_default=False,
        ),
    ] = None,
    alias: Annotated[
        str | None,
        typer.Option(
            "--alias", help="its name on the bench (default: from the served id)", show_default=False
        ),
    ] = None,
    role: Annotated[
        str | None, typer.Option("--role", help="general, code, light, vision or image", show_default=False)
    ] = None,
    ad_hoc: Annotated[bool, typer.Option("--ad-hoc", help="never seat it unless asked for by name")] = False,
    context_window: Annotated[
        int | None, typer.Option("--context-window", help="its context window in tokens", show_default=False)
    ] = None,
    max_output: Annotated[
        int | None, typer.Option("--max-output", help="its output limit in tokens", show_default=False)
    ] = None,
    vision: Annotated[
        bool | None, typer.Option("--vision/--no-vision", help="whether it reads images", show_default=False)
    ] = None,
    tools: Annotated[
        bool | None, typer.Option("--tools/--no-tools", help="whether it calls tools", show_default=False)
    ] = None,
    unlisted: Annotated[
        bool,
        typer.Option("--unlisted", help="add it although the endpoint's model listing does not name it"),
    ] = False,
    as_json: JsonFlag = False,
    url: UrlOption = None,
) -> None:
    """Put a model on the bench; the endpoint's model listing must name it, unless `--unlisted`."""
    body: dict[str, Any] = {"served_id": served_id}
    given = {
        "endpoint": endpoint,
        "alias": alias,
        "role": role,
        "ad_hoc": ad_hoc or None,
        "context_window": context_window,
        "max_output": max_output,
        "vision": vision,
        "tools": tools,
        "unlisted": unlisted or None,
    }
    body.update({k: v for k, v in given.items() if v is not None})
    with session(ctx, url, as_json) as s:
        added = s.client.call("POST", "/api/models", body=body)
        model = added.get("model", {})
        s.output.result(added, f"added {model.get('alias', alias)} ({served_id} on {model.get('endpoint')})")


def _row(model: dict[str, Any], with_retired: bool) -> list[Any]:
    row = [
        model.get(k)
        for k in (
            "alias",
            "served_id",
            "endpoint",
            "role",
            "ad_hoc",
            "context_window",
            "max_output",
            "vision",
            "tools",
        )
    ]
    if with_retired:
        row.append(model.get("retired_why") if model.get("retired_at") else None)
    return row


@group.command("list")
def list_models(
    ctx: typer.Context,
    every: Annotated[bool, typer.Option("--all", help="retired models too")] = False,
    as_json: JsonFlag = False,
    url: UrlOption = None,
) -> None:
    """List the models on the bench."""
    with session(ctx, url, as_json) as s:
        found = s.client.call("GET", "/api/models", params={"all": "true"} if every else None)
        if s.as_json:
            s.output.json(found)
            return
        columns = (*LIST_COLUMNS, "retired") if every else LIST_COLUMNS
        s.output.table(
            columns,
            [_row(m, every) for m in found.get("models", [])],
            empty="no models on the bench yet; add one with `panelgate model add <served id> [--endpoint E]`",
            spare=("max output", "tools", "vision", "context", "ad hoc"),
        )


def _change(
    ctx: typer.Context, alias: str, change: dict[str, Any], summary: str, as_json: bool, url: str | None
) -> None:
    with session(ctx, url, as_json) as s:
        changed = s.client.call("PATCH", f"/api/models/{segment(alias)}", body=change)
        s.output.result(changed, summary)


@group.command("rename")
def rename_model(
    ctx: typer.Context,
    alias: Annotated[str, typer.Argument(help="the model's alias now")],
    new_alias: Annotated[str, typer.Argument(help="its new alias")],
    as_json: JsonFlag = False,
    url: UrlOption = None,
) -> None:
    """Give a model a new alias; its record and its seats in collections follow it."""
    _change(ctx, alias, {"alias": new_alias}, f"renamed {alias} to {new_alias}", as_json, url)


@group.command("role")
def set_role(
    ctx: typer.Context,
    alias: Annotated[str, typer.Argument(help="the model")],
    role: Annotated[str, typer.Argument(help="general, code, light, vision or image")],
    as_json: JsonFlag = False,
    url: UrlOption = None,
) -> None:
    """Set what a model is for (a vision specialist sits only for images, an image model never on a panel)."""
    _change(ctx, alias, {"role": role}, f"{alias} is now a {role} model", as_json, url)


@group.command("ad-hoc")
def set_ad_hoc(
    ctx: typer.Context,
    alias: Annotated[str, typer.Argument(help="the model")],
    on: Annotated[
        bool, typer.Option("--on/--off", help="seated only when a caller names it in `with`")
    ] = True,
    as_json: JsonFlag = False,
    url: UrlOption = None,
) -> None:
    """Make a model ad hoc (seated only when named in `with`), or `--off` a regular member again."""
    summary = f"{alias} is {'ad hoc' if on else 'no longer ad hoc'}"
    _change(ctx, alias, {"ad_hoc": on}, summary, as_json, url)


@group.command("retire")
def retire_model(
    ctx: typer.Context,
    alias: Annotated[str, typer.Argument(help="the model to retire")],
    reason: Annotated[
        str | None, typer.Option("--reason", help="why, for the record", show_default=False)
    ] = None,
    yes: YesFlag = False,
    as_json: JsonFlag = False,
    url: UrlOption = None,
) -> None:
    """Take a model off the bench; its evidence is kept and `model restore` undoes it."""
    confirm(f"retire model `{alias}`", yes=yes)
    with session(ctx, url, as_json) as s:
        body = {"why": reason} if reason else {}
        retired = s.client.call("POST", f"/api/models/{segment(alias)}/retire", body=body)
        s.output.result(retired, f"retired {alias}; `panelgate model restore {alias}` puts it back")


@group.command("restore")
def restore_model(
    ctx: typer.Context,
    alias: Annotated[str, typer.Argument(help="the retired model to put back")],
    as_json: JsonFlag = False,
    url: UrlOption = None,
) -> None:
    """Put a retired model back on the bench and into the collections it sat in."""
    with session(ctx, url, as_json) as s:
        restored = s.client.call("POST", f"/api/models/{segment(alias)}/restore", body={})
        s.output.result(restored, f"restored {alias}")
