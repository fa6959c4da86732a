"""`panelgate hub list|plan|add|set`: adding a model through a hub (LiteLLM proxy, Open WebUI, CLI Proxy API).

`plan` is a dry run: it prints the requests an `add` would send, and sends
none. `add` sends them and queues the model for onboarding. `set` says
which hub program an endpoint is and keeps its admin key, read from stdin
or a hidden prompt, never from the command line (argv is visible to every
user of the machine).
"""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer

from panelgate.cli.client import segment
from panelgate.cli.common import JsonFlag, UrlOption, session
from panelgate.cli.endpoints import read_key

group = typer.Typer(
    no_args_is_help=True, help="Hubs: add a model through a LiteLLM proxy, Open WebUI or CLI Proxy API."
)

Endpoint = Annotated[str, typer.Argument(help="the hub endpoint's name")]
Model = Annotated[str, typer.Argument(help="the model's id, as the connection knows it")]
ConnectionOption = Annotated[
    str,
    typer.Option("--connection", "-c", help="the connection to add it to (`panelgate hub list` names them)"),
]


@group.command("list")
def list_hubs(ctx: typer.Context, as_json: JsonFlag = False, url: UrlOption = None) -> None:
    """Every hub endpoint, its version and its connections (read from the hub now)."""
    with session(ctx, url, as_json) as s:
        found = s.client.call("GET", "/api/hubs")
        if s.as_json:
            s.output.json(found)
            return
        rows = []
        for hub in found.get("hubs", []):
            version = f"{hub.get('version') or '?'}{'' if hub.get('checked') else ' (not checked)'}"
            if hub.get("error"):
                rows.append((hub["endpoint"], hub["program"], version, "-", hub["error"]))
            for connection in hub.get("connections", []):
                models = connection.get("models") or []
                rows.append(
                    (hub["endpoint"], hub["program"], version, connection["name"], f"{len(models)} models")
                )
        s.output.table(
            ("endpoint", "program", "version", "connection", "serves"),
            rows,
            empty="no hub endpoints; make one with `panelgate hub set <endpoint> --hub litellm`",
        )


def _show_plan(s: Any, plan: dict[str, Any], sent: bool) -> None:
    verb = "sent" if sent else "would send"
    s.output.line(
        f"{plan['model']} through {plan['connection']} on {plan['endpoint']}: served as {plan['served_id']}"
    )
    if plan.get("already"):
        s.output.line("the hub serves it already: nothing to send")
    for request in plan.get("requests", []) if not plan.get("already") else []:
        s.output.line(f"{verb}: {request['method']} {request['path']}")
        s.output.write(json.dumps(request["body"], indent=2) + "\n")
    for note in plan.get("notes", []):
        s.output.note(f"note: {note}")
    if plan.get("blocked") and not sent:
        s.output.note(f"an add would be refused: {plan['blocked']}")


@group.command("plan")
def plan_add(
    ctx: typer.Context,
    endpoint: Endpoint,
    model: Model,
    connection: ConnectionOption,
    as_json: JsonFlag = False,
    url: UrlOption = None,
) -> None:
    """Show what adding a model would send to the hub; nothing is sent."""
    with session(ctx, url, as_json) as s:
        found = s.client.call(
            "POST", f"/api/hubs/{segment(endpoint)}/plan", body={"model": model, "connection": connection}
        )
        if s.as_json:
            s.output.json(found)
            return
        _show_plan(s, found["plan"], sent=False)


@group.command("add")
def add(
    ctx: typer.Context,
    endpoint: Endpoint,
    model: Model,
    connection: ConnectionOption,
    alias: Annotated[
        str | None,
        typer.Option("--alias", help="its alias on the bench (default: from the id)", show_default=False),
    ] = None,
    suite: Annotated[
        str, typer.Option("--suite", help="onboarding's suite step: full, quick or quick+adhoc")
    ] = "full",
    as_json: JsonFlag = False,
    url: UrlOption = None,
) -> None:
    """Add a model through the hub, then queue it for onboarding."""
    body = {"model": model, "connection": connection, "suite": suite}
    if alias:
        body["alias"] = alias
    with session(ctx, url, as_json) as s:
        added = s.client.call("POST", f"/api/hubs/{segment(endpoint)}/add", body=body)
        if s.as_json:
            s.output.json(added)
            return
        _show_plan(s, added["plan"], sent=True)
        if added.get("on_bench"):
            s.output.line(f"on the bench already as {added['on_bench']}")
        elif added.get("onboarding"):
            item = added["onboarding"]
            s.output.line(f"queued for onboarding as {item['alias']} (item {item['id']})")


@group.command("set")
def set_hub(
    ctx: typer.Context,
    endpoint: Endpoint,
    hub: Annotated[str, typer.Option("--hub", help="litellm, openwebui, cliproxy, or none")],
    admin_key_stdin: Annotated[
        bool, typer.Option("--admin-key-stdin", help="read its admin key from stdin")
    ] = False,
    no_admin_key: Annotated[bool, typer.Option("--no-admin-key", help="forget its admin key")] = False,
    keep_admin_key: Annotated[
        bool, typer.Option("--keep-admin-key", help="leave its admin key as it is")
    ] = False,
    as_json: JsonFlag = False,
    url: UrlOption = None,
) -> None:
    """Say which hub program an endpoint is, and keep its admin key (never shown again)."""
    body: dict[str, Any] = {"hub": None if hub == "none" else hub}
    if not keep_admin_key:
        body["admin_key"] = read_key(
            f"{endpoint}'s admin API", from_stdin=admin_key_stdin, no_key=no_admin_key, key_name=None
        )
    with session(ctx, url, as_json) as s:
        changed = s.client.call("PUT", f"/api/endpoints/{segment(endpoint)}/hub", body=body)
        admin = changed.get("admin_key_name")
        kept = f"; admin key kept as {admin}" if admin else "; no admin key"
        s.output.result(
            changed, f"{endpoint} is {'not a hub' if hub == 'none' else 'a ' + hub + ' hub'}{kept}"
        )
