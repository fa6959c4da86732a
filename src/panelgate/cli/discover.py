"""`panelgate discover [--free] [--new] [--provider P] [--search WORDS]` and `discover add PROVIDER/MODEL`.

The listing is the server's (`GET /api/discover`): the public catalogs as
the last refresh read them, free first, new first, then by reach. Adding
queues the model for onboarding through an endpoint that serves it and
returns at once; `panelgate onboard status` follows it. `discover refresh`
reads the catalogs again (as the daily `catalog-refresh` job does). A model's id may
hold slashes (`openrouter/deepseek/deepseek-chat-v3-0324:free`): the
provider is the part before the first one.
"""

from __future__ import annotations

from typing import Annotated, Any

import typer

from panelgate.cli.common import JsonFlag, UrlOption, session
from panelgate.cli.failures import UsageProblem

group = typer.Typer(
    invoke_without_command=True,
    no_args_is_help=False,
    help="Models in the public catalogs (models.dev, OpenRouter): `panelgate discover [--free] [--new]`, "
    "`discover add PROVIDER/MODEL`, `discover refresh`.",
)
COLUMNS = ("model", "name", "marks", "reach", "context", "price in/out", "via")


@group.callback()
def discover(
    ctx: typer.Context,
    free: Annotated[bool, typer.Option("--free", help="free models only")] = False,
    new: Annotated[bool, typer.Option("--new", help="models first listed in the last 7 days")] = False,
    provider: Annotated[
        str | None, typer.Option("--provider", help="one provider's models", show_default=False)
    ] = None,
    search: Annotated[
        str | None,
        typer.Option("--search", "-s", help="words in the provider, id or name", show_default=False),
    ] = None,
    every: Annotated[
        bool, typer.Option("--all", help="paid models on providers not reached yet too")
    ] = False,
    listings: Annotated[
        bool, typer.Option("--listings", help="ask each endpoint what it lists (a call to each)")
    ] = False,
    limit: Annotated[int, typer.Option("--limit", help="at most this many rows")] = 200,
    as_json: JsonFlag = False,
    url: UrlOption = None,
) -> None:
    """Free and new models first, each with its reach: on bench, connected, easy to add, other."""
    if ctx.invoked_subcommand is not None:
        return
    params = {"free": free, "new": new, "all": every, "listings": listings}
    query = {name: "true" for name, on in params.items() if on}
    query |= {"limit": str(limit)} | ({"provider": provider} if provider else {})
    query |= {"q": search} if search else {}
    with session(ctx, url, as_json) as s:
        found = s.client.call("GET", "/api/discover", params=query)
        if s.as_json:
            s.output.json(found)
            return
        for catalog in found["catalogs"]:
            s.output.note(f"{catalog['source']}: {catalog['reading']}")
        for listing in found["listings"]:
            if not listing["read"]:
                s.output.note(f"{listing['endpoint']}: {listing['why']}")
        s.output.table(COLUMNS, [_row(row) for row in found["rows"]], empty=_nothing(found))
        if found["total"] > len(found["rows"]):
            s.output.note(f"{len(found['rows'])} of {found['total']} rows (--limit shows more)")


@group.command("add")
def add(
    ctx: typer.Context,
    model: Annotated[str, typer.Argument(help="PROVIDER/MODEL, as `panelgate discover` lists it")],
    endpoint: Annotated[
        str | None,
        typer.Option("--endpoint", help="the endpoint to add it through (default: its first route)"),
    ] = None,
    alias: Annotated[
        str | None, typer.Option("--alias", help="its alias on the bench", show_default=False)
    ] = None,
    suite: Annotated[
        str, typer.Option("--suite", help="full, quick or quick+adhoc, as `panelgate onboard` takes it")
    ] = "full",
    as_json: JsonFlag = False,
    url: UrlOption = None,
) -> None:
    """Put a model on the bench through an endpoint that serves it, by queueing it for onboarding."""
    provider, _, model_id = model.partition("/")
    if not provider or not model_id:
        raise UsageProblem(f"`{model}` is not PROVIDER/MODEL, e.g. groq/llama-3.1-8b-instant")
    body: dict[str, Any] = {"provider": provider, "model": model_id, "suite": suite}
    body |= ({"endpoint": endpoint} if endpoint else {}) | ({"alias": alias} if alias else {})
    with session(ctx, url, as_json) as s:
        added = s.client.call("POST", "/api/discover/add", body=body)
        route = added["route"]
        s.output.result(
            added,
            f"queued {provider}/{model_id} as `{added['alias']}` through {route['endpoint']} "
            f"(served as {route['served_id']}); follow it with `panelgate onboard status`",
        )


@group.command("refresh")
def refresh(ctx: typer.Context, as_json: JsonFlag = False, url: UrlOption = None) -> None:
    """Read the public catalogs now: fetched when reachable, else from their cached copies."""
    with session(ctx, url, as_json) as s:
        report = s.client.call("POST", "/api/catalog/refresh")
        s.output.result(report, report["summary"])


def _row(row: dict[str, Any]) -> tuple[Any, ...]:
    marks = [mark for mark in ("free", "new") if row[mark]] + (["queued"] if row["queued"] else [])
    price = row["price"]
    via = row["on_bench"] or [route["endpoint"] for route in row["routes"]]
    return (
        f"{row['provider']}/{row['model']}",
        row["name"],
        marks,
        row["reach"],
        None if row["context_window"] is None else f"{row['context_window']:,}",
        None if price is None else f"${price['input']:g} / ${price['output']:g}",
        via,
    )


def _nothing(found: dict[str, Any]) -> str:
    if all(catalog["refreshed_at"] is None for catalog in found["catalogs"]):
        return "no catalog has been read yet: `panelgate discover refresh` reads them"
    return "no model matches (--all shows paid models on providers not reached yet)"
