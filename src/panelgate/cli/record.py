"""`panelgate record`: per shape, the models ranked by how useful their answers were judged.

Each row is a model's posterior mean with its 90 % credible interval (few
verdicts, wide interval: a model two lucky verdicts put on top shows as
unsure), the verdicts and review-suite results behind it, and, when "better
than" verdicts were given on that shape, how often it would beat an average
model. The numbers are the server's (`GET /bench/record`); `--json` prints
its whole answer.
"""

from __future__ import annotations

import math
from typing import Annotated, Any

import typer

from panelgate.cli.common import JsonFlag, Session, UrlOption, session
from panelgate.cli.failures import CliFailure

RECORD_PATH = "/bench/record"
PAGE_PATH = "/api/record"
NEXT_SHOWN = 5
"""Explorer candidates listed per shape: the next panel's seats and the few after."""
MODELS_PATH = "/v1/models"
HOW_TO_JUDGE = (
    "Judge a seat's answer with `panelgate verdict <call> --useful` (or --not-useful); "
    "`panelgate pending` lists the seats waiting."
)


def nothing_yet(collection: str | None, shape: str | None) -> str:
    """What an empty record says: what was asked for, then how verdicts are given."""
    on = f" on `{shape}`" if shape else ""
    within = f" in bench/{collection.removeprefix('bench/')}" if collection else ""
    return f"No verdicts recorded{on}{within} yet. {HOW_TO_JUDGE}"


def unknown_collection(found: dict[str, Any], collection: str) -> str | None:
    """When `collection` is none of the bench's (`GET /v1/models`), the words saying so and naming them.

    A removed collection's verdicts stay on record, so the server answers any name; asked only when the
    record came back empty, this tells a typo apart from a collection nobody has judged yet."""
    ids = {str(model.get("id", "")) for model in found.get("data", ())}
    if f"bench/{collection.removeprefix('bench/')}" in ids:
        return None
    names = sorted(i for i in ids if i.startswith("bench/") and ":" not in i)  # not the :merged forms
    return f"no collection `bench/{collection.removeprefix('bench/')}` has verdicts or is on the bench; " + (
        f"collections: {', '.join(names)}" if names else "the bench has no collections yet"
    )


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def _share(value: float) -> str:
    return f"{value:.2f}"


def estimate(row: dict[str, Any]) -> str:
    """`0.72 (0.55–0.86)`: the posterior mean and its 90 % credible interval."""
    return f"{_share(row['mean'])} ({_share(row['low'])}–{_share(row['high'])})"


def _beats(log_strength: float) -> str:
    return f"{100.0 / (1.0 + math.exp(-log_strength)):.0f}%"


def beats_average(strength: dict[str, Any] | None) -> str | None:
    """`61% (45–75%)`: the chance it beats an average model, from its pairwise strength's interval."""
    if strength is None:
        return None
    return f"{_beats(strength['value'])} ({_beats(strength['low'])}–{_beats(strength['high'])})"


def record(
    ctx: typer.Context,
    collection: Annotated[
        str | None,
        typer.Option("--collection", "-c", help="only this collection's verdicts", show_default=False),
    ] = None,
    shape: Annotated[
        str | None,
        typer.Option("--shape", "-s", help="only this shape (e.g. code, review)", show_default=False),
    ] = None,
    upcoming: Annotated[
        bool,
        typer.Option(
            "--next",
            help="also who the explorer seats try next on each shape, and why (the admin API, as the "
            "Record page)",
        ),
    ] = False,
    as_json: JsonFlag = False,
    url: UrlOption = None,
) -> None:
    """Show the record: per shape, the models ranked by estimated usefulness, with 90% intervals."""
    params = {name: value for name, value in (("collection", collection), ("shape", shape)) if value}
    with session(ctx, url, as_json) as s:
        found = s.client.call("GET", RECORD_PATH, params=params or None)
        explorers = s.client.call("GET", PAGE_PATH, params=params or None)["explorers"] if upcoming else {}
        if s.as_json:
            s.output.json({**found, "explorers": explorers} if upcoming else found)
            return
        shapes: dict[str, list[dict[str, Any]]] = found.get("shapes") or {}
        if not shapes:
            unknown = collection and unknown_collection(s.client.call("GET", MODELS_PATH), collection)
            if unknown:
                raise CliFailure(unknown)
            s.output.note(nothing_yet(collection, shape))
            return
        for index, (name, rows) in enumerate(shapes.items()):
            if index:
                s.output.line("")
            judged = sum(int(row["judged"]) for row in rows)
            suite = sum(int(row["suite"]) for row in rows)
            title = f"{name}: {_count(len(rows), 'model')}, {_count(judged, 'verdict')}"
            s.output.table(
                ("#", "model", "useful (90% interval)", "judged", "suite", "beats average"),
                (
                    (
                        rank,
                        row["alias"],
                        estimate(row),
                        row["judged"],
                        row["suite"],
                        beats_average(row.get("strength")),
                    )
                    for rank, row in enumerate(rows, 1)
                ),
                empty=nothing_yet(collection, name),
                title=title + (f", {_count(suite, 'suite result')}" if suite else ""),
            )
            if name in explorers:
                show_next(s, explorers[name])


def show_next(s: Session, preview: dict[str, Any]) -> None:
    """The first few candidates for the shape's explorer seats, in the order the next panels take them."""
    if preview["rule"] == "stalest":
        how = "least recently seated first"
    else:
        how = f"by the record; every model at least once in {preview['floor']} panels"
    s.output.line(f"explorers next ({_count(preview['seats'], 'seat')} a panel, {how}):")
    for candidate in preview["candidates"][:NEXT_SHOWN]:
        soon = " [next panel]" if candidate["next_panel"] else ""
        s.output.line(f"  {candidate['alias']}{soon}: {candidate['why']}")
