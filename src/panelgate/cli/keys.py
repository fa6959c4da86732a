"""`panelgate key create|list|revoke`: who may call the gateway routes.

A new key's text is printed once, on stdout alone, so `panelgate key create
laptop > key.txt` keeps it and nothing else; the server keeps only its hash.
Revoking cannot be undone, so it asks first (or needs `--yes`).
"""

from __future__ import annotations

from typing import Annotated

import typer

from panelgate.cli.common import JsonFlag, UrlOption, YesFlag, session, split_list
from panelgate.cli.confirm import confirm

group = typer.Typer(no_args_is_help=True, help="Gateway keys: who may call the gateway, on what, how often.")


@group.command("create")
def create_key(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="what the key is for, e.g. laptop or ci")],
    collection: Annotated[
        list[str] | None,
        typer.Option("--collection", help="limit it to these collections (repeat, or a comma list)"),
    ] = None,
    rpm: Annotated[int | None, typer.Option("--rpm", min=1, help="requests a minute it may make")] = None,
    ad_hoc: Annotated[
        bool, typer.Option("--ad-hoc", help="it may seat ad hoc models by naming them in `with`")
    ] = False,
    as_json: JsonFlag = False,
    url: UrlOption = None,
) -> None:
    """Make a key; its text is printed once, now, and never shown again."""
    scope = [name.removeprefix("bench/") for name in split_list(collection)]
    body = {"name": name, "collections": scope or None, "rpm": rpm, "ad_hoc": ad_hoc}
    with session(ctx, url, as_json) as s:
        made = s.client.call("POST", "/api/keys", body=body)
        if s.as_json:
            s.output.json(made)
            return
        s.output.write(f"{made['key']}\n")
        where = ", ".join(f"bench/{c}" for c in made.get("collections") or []) or "every collection"
        s.output.note(f"key {made['id']} `{name}` for {where}: keep it now, it is not shown again")


@group.command("list")
def list_keys(ctx: typer.Context, as_json: JsonFlag = False, url: UrlOption = None) -> None:
    """List the keys (their last four characters, never the key)."""
    with session(ctx, url, as_json) as s:
        found = s.client.call("GET", "/api/keys")
        if s.as_json:
            s.output.json(found)
            return
        rows = [
            (
                k.get("id"),
                k.get("name"),
                f"…{k.get('hint')}",
                ", ".join(k.get("collections") or []) or "all",
                k.get("rpm") or "",
                "yes" if k.get("ad_hoc") else "",
                k.get("last_used_at") or "never",
                "revoked" if k.get("revoked") else "",
            )
            for k in found.get("keys", [])
        ]
        s.output.table(
            ("id", "name", "key", "collections", "rpm", "ad hoc", "last used", ""),
            rows,
            empty="no gateway keys yet; make one with `panelgate key create <name>`",
        )


@group.command("revoke")
def revoke_key(
    ctx: typer.Context,
    key_id: Annotated[int, typer.Argument(help="the key's id (see `panelgate keys`)")],
    yes: YesFlag = False,
    as_json: JsonFlag = False,
    url: UrlOption = None,
) -> None:
    """Revoke a key for good: every request with it is refused from now on."""
    confirm(f"revoke gateway key {key_id}", yes=yes)
    with session(ctx, url, as_json) as s:
        revoked = s.client.call("POST", f"/api/keys/{key_id}/revoke")
        s.output.result(revoked, f"revoked gateway key {key_id} `{revoked.get('name')}`")
