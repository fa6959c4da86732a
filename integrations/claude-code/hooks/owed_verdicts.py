#!/usr/bin/env python3
"""Claude Code's Stop hook: the seats of this key's recent panels still owed a verdict, asked for once.

Verdicts owed by an agent session are forgotten when it ends, so when Claude
is about to stop, this asks the gateway (`GET /bench/pending`, as the
session's gateway key in PANELGATE_KEY) which seats answered and have no
verdict yet. New ones are handed back to Claude as the reason to go on
(`"decision": "block"`): verify, then judge each with the `verdict` tool.
Seats already asked about in this session are not asked for again, and a
stop that is already a hook's continuation is never blocked, so a seat the
agent cannot judge never keeps a session from ending. Nothing owed, or a
gateway that does not answer: nothing on stdout, and the session stops.

Python's standard library only: it runs wherever Claude Code runs python3.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

DEFAULT_URL = "http://127.0.0.1:8122"
TIMEOUT_S = 5.0


def read_event() -> dict[str, Any]:
    """The hook's input (session id, whether this stop continues a hook's block); empty if unreadable."""
    try:
        event = json.loads(sys.stdin.read() or "{}")
    except ValueError:
        return {}
    return event if isinstance(event, dict) else {}


def owed_seats() -> list[dict[str, Any]]:
    """The seats the gateway says this key still owes a verdict, newest panel first."""
    url = os.environ.get("PANELGATE_URL") or DEFAULT_URL
    request = urllib.request.Request(
        f"{url.rstrip('/')}/bench/pending", headers={"Accept": "application/json"}
    )
    key = os.environ.get("PANELGATE_KEY")
    if key:
        request.add_header("Authorization", f"Bearer {key}")
    with urllib.request.urlopen(request, timeout=TIMEOUT_S) as reply:
        pending = json.load(reply).get("pending", [])
    return [seat for seat in pending if isinstance(seat, dict) and isinstance(seat.get("call"), str)]


def asked_file(session: str) -> Path:
    """Where this session's already-asked call ids are kept (the temp folder: they matter for a day)."""
    safe = "".join(c for c in session if c.isalnum() or c in "-_") or "no-session"
    return Path(tempfile.gettempdir()) / "panelgate-claude-code" / f"{safe}.json"


def already_asked(path: Path) -> set[str]:
    try:
        return set(json.loads(path.read_text()))
    except (OSError, ValueError, TypeError):
        return set()


def remember(path: Path, calls: set[str]) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(sorted(calls)))
    except OSError:
        pass  # asked again next stop: a nuisance, not a failure


def listing(seats: list[dict[str, Any]]) -> str:
    lines = [
        f"- {s['call']} ({s.get('seat', '?')}, {s.get('alias', '?')}, {s.get('collection', '?')})"
        for s in seats
    ]
    return "\n".join(
        [
            f"panelgate: {len(seats)} seat(s) of your recent panels have no verdict yet:",
            *lines,
            "Verify each answer you relied on against the code or the facts, then record one verdict per "
            "seat with the panelgate `verdict` tool (its call id, useful or not, the claims you checked as "
            "`real` or `false`, and source `claude-code`). Tell the person about any seat you cannot check "
            "rather than guessing.",
        ]
    )


def main() -> int:
    event = read_event()
    try:
        seats = owed_seats()
    except (OSError, ValueError) as failed:
        print(
            f"panelgate: could not ask the gateway for owed verdicts ({type(failed).__name__})",
            file=sys.stderr,
        )
        return 0
    path = asked_file(str(event.get("session_id") or ""))
    asked = already_asked(path)
    new = [seat for seat in seats if seat["call"] not in asked]
    if not new or event.get("stop_hook_active"):
        return 0
    remember(path, asked | {seat["call"] for seat in new})
    print(json.dumps({"decision": "block", "reason": listing(new)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
