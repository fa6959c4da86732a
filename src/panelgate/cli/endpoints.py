"""`panelgate endpoint add|test|list|default|prefer|rm`: where models are served from.

An endpoint's key is read from a hidden prompt or from stdin, never from the
command line: argv is visible to every user of the machine (`ps`) and lands
in shell history. The server tests the key against `<base>/models` before it
saves anything, and keeps it in its key file, never the database.
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from panelgate.cli.client import segment
from panelgate.cli.common import JsonFlag, UrlOption, YesFlag, session
from panelgate.cli.confirm import confirm, on_terminal
from panelgate.cli.failures import UsageProblem

group = typer.Typer(no_args_is_help=True, help="Endpoints: where models are served from.")


def read_key(name: str, *, from_stdin: bool, no_key: bool, key_name: str | None) -> str | None:
    """The endpoint's key: stdin with --key-stdin, a hidden prompt on a terminal, or none."""
    if from_stdin and no_key:
        raise UsageProblem("--key-stdin and --no-key contradict each other; pick one")
    if no_key:
        return None
    if from_stdin:
        key = sys.stdin.readline().strip() if sys.stdin is not None else ""
        if not key:
            raise UsageProblem("--key-stdin: stdin held no key")
        return key
    if on_terminal():
        typed: str = typer.prompt(
            f"API key for {name} (hidden; Enter for none)",
            default="",
            hide_input=True,
            show_default=False,
            err=True,
        )
        return typed.strip() or None
    if key_name:
        return None
    raise UsageProblem(
        "no key given: pipe it with --key-stdin, pass --no-key for a server without one, "
        "or --key-name for a key the server already holds"
    )


@group.command("add")
def add_endpoint(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="the endpoint's name, e.g. openrouter")],
    base: Annotated[str, typer.Option("--base", help="its base URL, usually ending in /v1")],
    kind: Annotated[
        str | None, typer.Option("--kind", help="provider, aggregator, hub or local", show_default=False)
    ] = None,
    api: Annotated[
        str | None, typer.Option("--api", help="chat, anthropic, gemini or responses", show_default=False)
    ] = None,
    key_name: Annotated[
        str | None,
        typer.Option(
            "--key-name",
            help="the name its key is kept under (PANELGATE_KEY_<NAME> on the server)",
            show_default=False,
        ),
    ] = None,
    key_stdin: Annotated[bool, typer.Option("--key-stdin", help="read the key from stdin")] = False,
    no_key: Annotated[bool, typer.Option("--no-key", help="the endpoint needs no key (e.g. Ollama)")] = False,
    default: Annotated[bool, typer.Option("--default", help="make it the default endpoint")] = False,
    preferred: Annotated[
        bool, typer.Option("--preferred", help="its models sit first among equally good explorers")
    ] = False,
    as_json: JsonFlag = False,
    url: UrlOption = None,
) -> None:
    """Add an endpoint; the server lists its models with the key first and saves it only if that works."""
    key = read_key(name, from_stdin=key_stdin, no_key=no_key, key_name=key_name)
    body = {
        "name": name,
        "base_url": base,
        "kind": kind,
        "api": api,
        "key_name": key_name,
        "key": key,
        "default": default,
        "preferred": preferred or None,
    }
    with session(ctx, url, as_json) as s:
        added = s.client.call("POST", "/api/endpoints", body={k: v for k, v in body.items() if v is not None})
        listed = added.get("listed") or []
        s.output.result(added, f"added endpoint {name}: it lists {len(listed)} models")
        if listed and not s.as_json:
            on = "" if (added.get("endpoint") or {}).get("is_default") else f" --endpoint {name}"
            s.output.note(
                f"put one on the bench: panelgate model add {listed[0]}{on} "
                f"(panelgate onboard candidates lists every one the bench lacks)"
            )


@group.command("test")
def test_endpoint(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="a name for it, e.g. openrouter")],
    base: Annotated[str, typer.Option("--base", help="its base URL, usually ending in /v1")],
    key_name: Annotated[
        str | None,
        typer.Option("--key-name", help="a key the server already holds, by name", show_default=False),
    ] = None,
    key_stdin: Annotated[bool, typer.Option("--key-stdin", help="read the key from stdin")] = False,
    no_key: Annotated[bool, typer.Option("--no-key", help="the endpoint needs no key")] = False,
    as_json: JsonFlag = False,
    url: UrlOption = None,
) -> None:
    """Check that the server can list an endpoint's models with a key, saving nothing."""
    key = read_key(name, from_stdin=key_stdin, no_key=no_key, key_name=key_name)
    body = {"name": name, "base_url": base, "key_name": key_name, "key": key, "test": True}
    with session(ctx, url, as_json) as s:
        tested = s.client.call(
            "POST", "/api/endpoints", body={k: v for k, v in body.items() if v is not None}
        )
        listed = tested.get("listed") or []
        s.output.result(tested, f"{name} answers: it lists {len(listed)} models (nothing saved)")


@group.command("default")
def default_endpoint(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="the endpoint new models go to when none is named")],
    as_json: JsonFlag = False,
    url: UrlOption = None,
) -> None:
    """Make an endpoint the default one."""
    with session(ctx, url, as_json) as s:
        made = s.client.call("POST", f"/api/endpoints/{segment(name)}/default")
        s.output.result(made, f"{name} is the default endpoint")


@group.command("prefer")
def prefer_endpoint(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="the endpoint whose models break explorer ties")],
    off: Annotated[bool, typer.Option("--off", help="no longer preferred")] = False,
    as_json: JsonFlag = False,
    url: UrlOption = None,
) -> None:
    """Mark an endpoint preferred: its models sit first among explorer candidates the record ties."""
    with session(ctx, url, as_json) as s:
        changed = s.client.call(
            "PUT", f"/api/endpoints/{segment(name)}/preferred", body={"preferred": not off}
        )
        s.output.result(changed, f"{name} is {'no longer ' if off else ''}preferred")


@group.command("list")
def list_endpoints(ctx: typer.Context, as_json: JsonFlag = False, url: UrlOption = None) -> None:
    """List the endpoints (a key, and each extra header's value, shown only as where it is kept)."""
    with session(ctx, url, as_json) as s:
        found = s.client.call("GET", "/api/endpoints")
        if s.as_json:
            s.output.json(found)
            return
        rows = [
            (
                e.get("name"),
                e.get("base_url"),
                e.get("kind"),
                e.get("api"),
                e.get("key_name"),
                e.get("key"),
                _headers(e.get("headers") or {}),
                e.get("is_default"),
                e.get("preferred"),
            )
            for e in found.get("endpoints", [])
        ]
        s.output.table(
            ("name", "base URL", "kind", "api", "key name", "key", "headers", "default", "preferred"),
            rows,
            empty="no endpoints yet; add one with `panelgate endpoint add <name> --base URL`",
            spare=("headers", "preferred", "key name", "api"),
        )


def _headers(headers: dict[str, dict[str, str | None]]) -> str:
    """Each extra header's name and where its value is kept (`X-Title (file)`); never the value."""
    return ", ".join(f"{name} ({kept.get('key') or 'not kept'})" for name, kept in sorted(headers.items()))


@group.command("rm")
def remove_endpoint(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="the endpoint to remove")],
    yes: YesFlag = False,
    as_json: JsonFlag = False,
    url: UrlOption = None,
) -> None:
    """Remove an endpoint."""
    confirm(f"remove endpoint `{name}`", yes=yes)
    with session(ctx, url, as_json) as s:
        removed = s.client.call("DELETE", f"/api/endpoints/{segment(name)}")
        s.output.result(removed, f"removed endpoint {name}")
