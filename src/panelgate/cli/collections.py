"""`panelgate collection save|show|list|rm`: named panels of models.

`save` changes only what it is told: on an existing collection it sends just
the given fields (and `--add`/`--remove` edits of the members), so changing
a description can never drop a member someone else added meanwhile. A new
collection needs its members.
"""

from __future__ import annotations

from typing import Annotated, Any

import typer

from panelgate.cli.client import Client, segment
from panelgate.cli.common import JsonFlag, UrlOption, YesFlag, session, split_list
from panelgate.cli.confirm import confirm
from panelgate.cli.failures import Refused, UsageProblem
from panelgate.cli.output import Output

group = typer.Typer(no_args_is_help=True, help="Collections: the panels you ask by name.")
AUTOMATIC_SHAPE = "auto"


def changes_asked(
    members: str | None,
    shape: str | None,
    description: str | None,
    tags: str | None,
    reply: str | None,
    merger: str | None,
    offered_tools: str | None = None,
    verdicts_owed: str | None = None,
) -> dict[str, Any]:
    """The fields the command line sets; `--shape auto` (or empty) lets the gateway decide."""
    changes: dict[str, Any] = {}
    if members is not None:
        changes["members"] = split_list([members])
    if tags is not None:
        changes["tags"] = split_list([tags])
    if shape is not None:
        changes["shape"] = None if shape.strip() in ("", AUTOMATIC_SHAPE) else shape.strip()
    given = (
        ("description", description),
        ("reply", reply),
        ("merger", merger),
        ("offered_tools", offered_tools),
        ("verdicts_owed", verdicts_owed),
    )
    for field, value in given:
        if value is not None:
            changes[field] = value
    return changes


def exists(client: Client, name: str) -> bool:
    try:
        client.call("GET", f"/api/collections/{segment(name)}")
    except Refused as refusal:
        if refusal.status == 404:
            return False
        raise
    return True


def show_fields(output: Output, collection: dict[str, Any]) -> None:
    together = collection.get("together") or {}
    output.fields(
        [
            ("name", collection.get("name")),
            ("members", collection.get("members")),
            ("description", collection.get("description")),
            ("tags", collection.get("tags")),
            ("shape", collection.get("shape") or AUTOMATIC_SHAPE),
            ("reply", collection.get("reply")),
            ("merger", collection.get("merger")),
            ("offered tools", collection.get("offered_tools")),
            ("verdicts owed", collection.get("verdicts_owed")),
            ("explorers", collection.get("explorers")),
            ("context window", together.get("context_window")),
        ]
    )


@group.command("save")
def save_collection(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="the collection's name, e.g. core")],
    members: Annotated[
        str | None, typer.Option("--members", help="all its members, comma-separated", show_default=False)
    ] = None,
    add: Annotated[
        list[str] | None, typer.Option("--add", help="add these members", show_default=False)
    ] = None,
    remove: Annotated[
        list[str] | None, typer.Option("--remove", help="remove these members", show_default=False)
    ] = None,
    shape: Annotated[
        str | None, typer.Option("--shape", help="the kind of work, or `auto`", show_default=False)
    ] = None,
    description: Annotated[
        str | None, typer.Option("--description", help="what it is for", show_default=False)
    ] = None,
    tags: Annotated[
        str | None, typer.Option("--tags", help="comma-separated tags", show_default=False)
    ] = None,
    reply: Annotated[
        str | None, typer.Option("--reply", help="all, merged or route", show_default=False)
    ] = None,
    merger: Annotated[
        str | None, typer.Option("--merger", help="the model that merges (empty: chosen)", show_default=False)
    ] = None,
    offered_tools: Annotated[
        str | None,
        typer.Option(
            "--offered-tools",
            help="tools a chat offers a panel with none called yet: drop (answer without them) or refuse",
            show_default=False,
        ),
    ] = None,
    verdicts_owed: Annotated[
        str | None,
        typer.Option(
            "--verdicts-owed",
            help="which panels owe verdicts: all, chats (not a chat UI's background tasks) or none",
            show_default=False,
        ),
    ] = None,
    as_json: JsonFlag = False,
    url: UrlOption = None,
) -> None:
    """Create a collection, or change only the given fields of an existing one."""
    changes = changes_asked(members, shape, description, tags, reply, merger, offered_tools, verdicts_owed)
    edits = {"add": split_list(add), "remove": split_list(remove)}
    if members is not None and (edits["add"] or edits["remove"]):
        raise UsageProblem("--members sets every member; use it or --add/--remove, not both")
    with session(ctx, url, as_json) as s:
        path = f"/api/collections/{segment(name)}"
        if exists(s.client, name):
            body = {**changes, **{k: v for k, v in edits.items() if v}}
            if not body:
                raise UsageProblem(
                    f"nothing to change in `{name}`: give --members, --add, --remove, --shape, "
                    "--description, --tags, --reply, --merger, --offered-tools or --verdicts-owed"
                )
            saved = s.client.call("PATCH", path, body=body)
        elif "members" not in changes:
            raise UsageProblem(f"there is no collection `{name}` yet; give its members with --members A,B")
        else:
            saved = s.client.call("PUT", path, body=changes)
        if s.as_json:
            s.output.json(saved)
        else:
            show_fields(s.output, saved.get("collection", {}))


@group.command("show")
def show_collection(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="the collection")],
    as_json: JsonFlag = False,
    url: UrlOption = None,
) -> None:
    """Show one collection."""
    with session(ctx, url, as_json) as s:
        found = s.client.call("GET", f"/api/collections/{segment(name)}")
        if s.as_json:
            s.output.json(found)
        else:
            show_fields(s.output, found.get("collection", {}))


@group.command("list")
def list_collections(ctx: typer.Context, as_json: JsonFlag = False, url: UrlOption = None) -> None:
    """List the collections."""
    with session(ctx, url, as_json) as s:
        found = s.client.call("GET", "/api/collections")
        if s.as_json:
            s.output.json(found)
            return
        rows = [
            (
                c.get("name"),
                c.get("members"),
                c.get("reply"),
                c.get("shape") or AUTOMATIC_SHAPE,
                c.get("tags"),
                c.get("description"),
            )
            for c in found.get("collections", [])
        ]
        s.output.table(
            ("name", "members", "reply", "shape", "tags", "description"),
            rows,
            empty="no collections yet; make one with `panelgate collection save <name> --members A,B`",
        )


@group.command("rm")
def remove_collection(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="the collection to remove")],
    yes: YesFlag = False,
    as_json: JsonFlag = False,
    url: UrlOption = None,
) -> None:
    """Remove a collection (its recorded panels and verdicts stay)."""
    confirm(f"remove collection `{name}`", yes=yes)
    with session(ctx, url, as_json) as s:
        removed = s.client.call("DELETE", f"/api/collections/{segment(name)}")
        s.output.result(removed, f"removed collection {name}")
