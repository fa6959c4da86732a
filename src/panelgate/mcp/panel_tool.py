"""The `ask` tool: seat a panel in process, report each seat as it finishes, return every answer.

A panel can take minutes and MCP clients give up on a silent call, so each
finished seat and each quiet keep-alive interval becomes a progress
notification. The reply is the same markdown every API gets (each seat
labelled, with its call id), then the seats as JSON and how to judge them.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import replace
from typing import Any

from mcp import types

from panelgate.core.caller_scope import CallerScope
from panelgate.core.errors import BadRequest, UpstreamFailed, error_for_status
from panelgate.core.naming import parse_model_id
from panelgate.core.types import Failed, Finished, Heartbeat, PanelRequest, SeatDone, Seated
from panelgate.engine.entry import Asked, Entry, StartedPanel
from panelgate.mcp.tool_texts import answer

Progress = Callable[[float, float | None, str], Awaitable[None]]
"""(seats done, seats in all, what happened): how a tool reports progress to its caller."""

JUDGING = (
    "Verify each answer before acting on it; name the seat of every point you use. "
    "Then send `verdict` once per seat you checked: "
    '{"call": "<call id>", "useful": true|false, "note": "...", "real": [...], "false": [...]}.'
)


def text_argument(arguments: Mapping[str, Any], name: str, *, required: bool = False) -> str | None:
    """A tool's string argument (None when left out); a refusal naming it when it is not a string."""
    value = arguments.get(name)
    if value is None and not required:
        return None
    if not isinstance(value, str) or (required and not value.strip()):
        raise BadRequest(f"`{name}` must be {'a non-empty' if required else 'a'} string", param=name)
    return value


def read_ask(arguments: Mapping[str, Any]) -> PanelRequest:
    """The panel request an `ask` call stands for; a route collection is asked as a panel here."""
    collection = str(text_argument(arguments, "collection", required=True)).strip()
    prompt = str(text_argument(arguments, "prompt", required=True))
    system = text_argument(arguments, "system")
    merged = arguments.get("merged", False)
    if not isinstance(merged, bool):
        raise BadRequest("`merged` must be true or false", param="merged")
    nominees = arguments.get("with") or []
    if not isinstance(nominees, list) or not all(isinstance(a, str) and a.strip() for a in nominees):
        raise BadRequest('`with` must be a list of model aliases, e.g. ["m3"]', param="with")
    model = collection if collection.startswith("bench/") else f"bench/{collection}"
    name, _ = parse_model_id(model)
    messages = [{"role": "system", "content": system}] if system else []
    messages.append({"role": "user", "content": prompt})
    return PanelRequest(
        model=model,
        collection=name,
        messages=messages,
        reply="merged" if merged else "all",
        nominees=tuple(a.strip() for a in nominees),
    )


_SEAT_FIELDS = ("seat", "alias", "status", "seconds", "call", "error", "served_as", "attempts")
"""A seat in the tool's result; `served_as` and `attempts` only when the reply's entry has them."""


def _seat_line(bench: Mapping[str, Any]) -> list[dict[str, Any]]:
    seats = [*bench.get("seats", []), *([bench["merger"]] if "merger" in bench else [])]
    return [{k: seat[k] for k in _SEAT_FIELDS if k in seat} for seat in seats]


async def ask_panel(
    entry: Entry, scope: CallerScope, arguments: Mapping[str, Any], progress: Progress
) -> types.CallToolResult:
    """The reply's markdown, then the seats as JSON (also the structured result).

    Raises `GatewayError` when the panel is refused or fails.
    """
    request = read_ask(arguments)
    asked = Asked(request.model, None, lambda caller: replace(request, caller=caller))
    started = await entry.start(asked, scope)
    assert isinstance(started, StartedPanel), "an `ask` is read as a panel only"
    run = started.run
    done, total = 0, None
    async for event in run.events():
        if isinstance(event, Seated):
            total = len(event.plan.seats) + (1 if event.reply == "merged" else 0)
            await progress(0, total, f"panel {event.panel}: {total} seats asked")
        elif isinstance(event, SeatDone):
            done += 1
            seat = event.result
            await progress(done, total, f"{seat.label} {seat.alias}: {seat.status} in {seat.seconds:.1f} s")
        elif isinstance(event, Heartbeat):
            await progress(done, total, f"{done} of {total} seats done, waiting for the rest")
        elif isinstance(event, Failed):
            raise error_for_status(event.status, event.message)
        elif isinstance(event, Finished):
            seats = {"panel": run.panel, "collection": request.model, "seats": _seat_line(event.bench)}
            if event.bench.get("skipped"):
                seats["skipped"] = event.bench["skipped"]
            return answer(f"{event.content}\n\n{JUDGING}", seats)
    raise UpstreamFailed(f"panel {run.panel} ended without a reply")
