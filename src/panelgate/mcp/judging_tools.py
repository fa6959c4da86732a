"""The `verdict` and `pending_verdicts` tools: judging a panel's seats from an agent.

A verdict is recorded by the same desk as `/bench/verdict`, as the caller
(its key's name is the verdict's actor), with the optional `source` the
agent names itself by (`claude-code`), so the Record page can tell an
agent's verdicts from a person's.
Which seats are still owed is tracked per caller (its gateway key's id,
never its name, which another key may share; or no key) in the database,
from the panels it asked: that holds across gateway processes and restarts,
which an MCP session kept in one process's memory would not.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

from mcp import types

from panelgate.core.caller_scope import CallerScope
from panelgate.engine.verdict_desk import owed_seats, read_verdict, record_verdict
from panelgate.mcp.tool_texts import answer
from panelgate.store import Database


async def verdict(db: Database, scope: CallerScope, arguments: Mapping[str, Any]) -> types.CallToolResult:
    asked = read_verdict(arguments)
    outcome = await record_verdict(db, scope, asked)
    judged = "useful" if asked.useful else "not useful"
    result = {
        "ok": True,
        "call": asked.call,
        "useful": asked.useful,
        "source": asked.source,
        "result": outcome,
    }
    beat = f"; better than {', '.join(asked.better_than)}" if asked.better_than else ""
    return answer(f"Recorded: {asked.call} is {judged}{beat} ({outcome}).", result)


async def pending_verdicts(
    db: Database, scope: CallerScope, now: Callable[[], datetime]
) -> types.CallToolResult:
    owed = await owed_seats(db, scope, now())
    seats = [
        {
            "call": seat.call,
            "seat": seat.label,
            "alias": seat.alias,
            "panel": seat.panel,
            "collection": f"bench/{seat.collection}",
        }
        for seat in owed
    ]
    if not seats:
        none_owed = "No verdicts owed: every seat of your recent panels is judged."
        return answer(none_owed, {"pending": []})
    lines = [f"- {s['call']} ({s['seat']}, {s['alias']}, {s['collection']})" for s in seats]
    heading = f"{len(seats)} seats of your recent panels have no verdict yet; judge each with `verdict`:"
    listing = {"pending": seats}
    return answer("\n".join([heading, *lines]), listing)
