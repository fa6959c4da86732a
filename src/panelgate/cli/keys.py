"""`panelgate key create|list|limits|revoke`: who may call the gateway routes, how often, how much.

A new key's text is printed once, on stdout alone, so `panelgate key create
laptop > key.txt` keeps it and nothing else; the server keeps only its hash.
Budgets (tokens and US dollars per UTC day and month) are set at creation or
by `limits`; the list shows them with what each key spent. Revoking cannot
be undone, so it asks first (or needs `--yes`).
"""

from __future__ import annotations

from typing import Annotated, Any

import typer

from panelgate.cli.common import JsonFlag, UrlOption, YesFlag, session, split_list
from panelgate.cli.confirm import confirm
from panelgate.cli.moments import minute_utc

group = typer.Typer(
    no_args_is_help=True, help="Gateway keys: who may call the gateway, on what, how often, how much."
)

TokensPerDay = Annotated[
    int | None, typer.Option("--tokens-per-day", min=1, help="tokens in and out a UTC day")
]
TokensPerMonth = Annotated[
    int | None, typer.Option("--tokens-per-month", min=1, help="tokens in and out a calendar month (UTC)")
]
CostPerDay = Annotated[float | None, typer.Option("--cost-per-day", help="US dollars a UTC day")]
CostPerMonth = Annotated[
    float | None, typer.Option("--cost-per-month", help="US dollars a calendar month (UTC)")
]
BUDGET_WORDS = (
    ("tokens_per_day", "{:,} tokens/day"),
    ("tokens_per_month", "{:,} tokens/month"),
    ("cost_per_day", "${:,.2f}/day"),
    ("cost_per_month", "${:,.2f}/month"),
)
LIMIT_OPTIONS = ("rpm", *(name.replace("_", "-") for name, _ in BUDGET_WORDS))


def _budgets(key: dict[str, Any]) -> str:
    return ", ".join(words.format(key[name]) for name, words in BUDGET_WORDS if key.get(name) is not None)


def _spent(key: dict[str, Any]) -> str:
    """Today's and this month's use, for keys with a budget (the server counts only theirs)."""
    spent = key.get("spent")
    if not spent:
        return ""
    day, month = spent["day"], spent["month"]
    today = f"{day['tokens']:,} tok ${day['cost']:,.2f} today"
    return f"{today}; {month['tokens']:,} tok ${month['cost']:,.2f} this month"


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
    tokens_per_day: TokensPerDay = None,
    tokens_per_month: TokensPerMonth = None,
    cost_per_day: CostPerDay = None,
    cost_per_month: CostPerMonth = None,
    as_json: JsonFlag = False,
    url: UrlOption = None,
) -> None:
    """Make a key; its text is printed once, now, and never shown again."""
    scope = [name.removeprefix("bench/") for name in split_list(collection)]
    body = {
        "name": name,
        "collections": scope or None,
        "rpm": rpm,
        "ad_hoc": ad_hoc,
        "tokens_per_day": tokens_per_day,
        "tokens_per_month": tokens_per_month,
        "cost_per_day": cost_per_day,
        "cost_per_month": cost_per_month,
    }
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
                _budgets(k),
                _spent(k),
                "yes" if k.get("ad_hoc") else "",
                minute_utc(k.get("last_used_at")) or "never",
                "revoked" if k.get("revoked") else "",
            )
            for k in found.get("keys", [])
        ]
        s.output.table(
            (
                "id",
                "name",
                "key",
                "collections",
                "rpm",
                "budgets",
                "spent (UTC)",
                "ad hoc",
                "last used (UTC)",
                "",
            ),
            rows,
            empty="no gateway keys yet; make one with `panelgate key create <name>`",
            spare=("ad hoc", "rpm"),
        )


@group.command("limits")
def change_limits(
    ctx: typer.Context,
    key_id: Annotated[int, typer.Argument(help="the key's id (see `panelgate keys`)")],
    rpm: Annotated[int | None, typer.Option("--rpm", min=1, help="requests a minute it may make")] = None,
    tokens_per_day: TokensPerDay = None,
    tokens_per_month: TokensPerMonth = None,
    cost_per_day: CostPerDay = None,
    cost_per_month: CostPerMonth = None,
    lift: Annotated[
        list[str] | None,
        typer.Option(
            "--lift", help=f"remove these limits (repeat, or a comma list): {', '.join(LIMIT_OPTIONS)}"
        ),
    ] = None,
    as_json: JsonFlag = False,
    url: UrlOption = None,
) -> None:
    """Change a key's rpm and budgets; those not named stay as they are."""
    given = {
        "rpm": rpm,
        "tokens_per_day": tokens_per_day,
        "tokens_per_month": tokens_per_month,
        "cost_per_day": cost_per_day,
        "cost_per_month": cost_per_month,
    }
    body: dict[str, Any] = {name: value for name, value in given.items() if value is not None}
    body.update({name.replace("-", "_"): None for name in split_list(lift)})
    if not body:
        raise typer.BadParameter("name a limit to set (e.g. --tokens-per-day 100000) or to --lift")
    with session(ctx, url, as_json) as s:
        changed = s.client.call("PATCH", f"/api/keys/{key_id}", body=body)
        limits = ", ".join(
            filter(None, (f"{changed['rpm']} rpm" if changed.get("rpm") else "", _budgets(changed)))
        )
        s.output.result(changed, f"gateway key {key_id} `{changed.get('name')}`: {limits or 'no limits'}")


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
