"""The `list_collections` tool: one entry per collection the caller may ask, with what it is for."""

from __future__ import annotations

from typing import Any

from mcp import types

from panelgate.core.caller_scope import CallerScope
from panelgate.engine.listing import describe
from panelgate.mcp.tool_texts import answer
from panelgate.store import Database


async def list_collections(db: Database, scope: CallerScope) -> types.CallToolResult:
    """The collections as JSON, and a line per collection for an agent to read at a glance."""
    bench = await db.bench.snapshot()
    entries: list[dict[str, Any]] = []
    for name in scope.visible(bench.collections):
        collection = bench.collections[name]
        described = describe(collection, bench.roster, bench.limits)
        entries.append({"name": name, "model": f"bench/{name}", "reply": collection.reply, **described})
    if not entries:
        none_yet = "No collections yet: make one in the dashboard or with `panelgate collection save`."
        return answer(none_yet, {"collections": []})
    lines = [
        f"- {e['name']}: {len(e['members'])} members ({', '.join(e['members'])})"
        + (f" — {e['description']}" if e["description"] else "")
        for e in entries
    ]
    listing = {"collections": entries}
    return answer("\n".join(lines), listing)
