"""`panelgate pending`: the seats of your recent panels still waiting for a verdict.

"Yours" is the caller the server sees: the gateway key in `PANELGATE_KEY`,
or `local` without one, over the panels of the last day (`GET
/bench/pending`, what the MCP `pending_verdicts` tool lists too).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import typer

from panelgate.cli.common import JsonFlag, UrlOption, session

PENDING_PATH = "/bench/pending"
PREVIEW_CHARS = 48
NONE_OWED = "No verdicts owed: every seat of your panels of the last day is judged."


def preview(text: str) -> str:
    """The prompt's start on one line, cut to `PREVIEW_CHARS`."""
    line = " ".join(text.split())
    return line if len(line) <= PREVIEW_CHARS else line[: PREVIEW_CHARS - 1] + "…"


def when(at: str) -> str:
    """An ISO 8601 time as this machine's local `MM-DD HH:MM` (the panels listed are of the last day)."""
    try:
        return datetime.fromisoformat(at).astimezone().strftime("%m-%d %H:%M")
    except ValueError:
        return at


def pending(ctx: typer.Context, as_json: JsonFlag = False, url: UrlOption = None) -> None:
    """List the seats of your panels of the last day that answered and have no verdict yet."""
    with session(ctx, url, as_json) as s:
        found = s.client.call("GET", PENDING_PATH)
        if s.as_json:
            s.output.json(found)
            return
        seats: list[dict[str, Any]] = found.get("pending") or []
        if not seats:
            s.output.note(NONE_OWED)
            return
        s.output.table(
            ("call", "model", "shape", "asked", "prompt"),
            (
                (
                    seat["call"],
                    seat["alias"],
                    seat["shape"],
                    when(seat["at"]),
                    preview(seat.get("preview") or ""),
                )
                for seat in seats
            ),
            empty=NONE_OWED,
            title=f"{len(seats)} {'seat' if len(seats) == 1 else 'seats'} waiting for a verdict",
            whole=("call",),
        )
        s.output.note(
            f"Judge each: panelgate verdict {seats[0]['call']} --useful (or --not-useful) [--note WHY] "
            "[--better-than CALL], or one panel after another: panelgate judge"
        )
