"""The `record` tool: what the verdicts say of each model on each shape of work, best first.

An agent choosing whom to name in `ask`'s `with`, or how far to trust a
seat, reads the same estimates as `GET /bench/record` and the Record page:
per shape, each model's posterior mean of useful answers, its 90 % credible
interval and the verdicts behind it. A scoped key reads its collections'
record only, as on `/bench/record`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from mcp import types

from panelgate.core.caller_scope import CallerScope
from panelgate.core.shapes import checked_shape
from panelgate.engine.standings import read_standings
from panelgate.mcp.panel_tool import text_argument
from panelgate.mcp.tool_texts import answer
from panelgate.store import Database

NAMED_PER_SHAPE = 8
"""Models named per shape in the text an agent reads: enough to choose from, short on a big bench."""


def _estimate(row: Mapping[str, Any]) -> str:
    judged = int(row["judged"])
    return (
        f"{row['alias']} {row['mean']:.2f} ({row['low']:.2f}–{row['high']:.2f}), "
        f"{judged} verdict{'' if judged == 1 else 's'}"
    )


async def record(db: Database, scope: CallerScope, arguments: Mapping[str, Any]) -> types.CallToolResult:
    asked = (text_argument(arguments, "collection") or "").strip().removeprefix("bench/")
    shape = checked_shape(text_argument(arguments, "shape"))
    collection = scope.record_of(asked or None)
    ranked = await read_standings(db, collection, shape)
    structured = {
        "collection": f"bench/{collection}" if collection else None,
        "shape": shape,
        "shapes": ranked,
    }
    whose = f"bench/{collection}'s panels" if collection else "the whole bench"
    if not ranked:
        on = f" on `{shape}`" if shape else ""
        return answer(f"No verdicts on record{on} for {whose} yet.", structured)
    lines = [
        f"The record of {whose}: per shape, models best first, each with the estimated share of its "
        "answers that are useful (90% interval) and the verdicts behind it."
    ]
    lines += [f"- {on}: " + _shape_line(rows) for on, rows in ranked.items()]
    return answer("\n".join(lines), structured)


def _shape_line(rows: Sequence[Mapping[str, Any]]) -> str:
    """The best `NAMED_PER_SHAPE` of a shape in words (the JSON holds every one)."""
    named = "; ".join(_estimate(row) for row in rows[:NAMED_PER_SHAPE])
    rest = len(rows) - NAMED_PER_SHAPE
    return named + (f"; and {rest} more (in the JSON)" if rest > 0 else "")
