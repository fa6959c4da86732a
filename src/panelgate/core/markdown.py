"""The words of a panel reply, piece by piece.

A reply is heading + `Not asked` line + one section per seat + footer. Each
piece is rendered on its own from its own inputs and ends with a blank line,
so a stream that sends them as they happen (seats in the order they finish)
says exactly what the whole reply says, only in another order. Nothing here
knows which API the caller spoke.
"""

from __future__ import annotations

from collections.abc import Sequence

from panelgate.core.types import SeatResult, Skip

VERDICT_HOW = (
    '`POST /bench/verdict {"call": "<call id>", "useful": true|false, "note": "..."}`'
    " or `panelgate verdict <call> --useful`"
)


def _count(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _one_line(text: str) -> str:
    return " ".join(text.split())


def heading(collection: str, panel: str, members: int, explorers: int, shape: str, shape_by: str) -> str:
    """`**bench/core** · panel `p…` · 3 members + 2 explorers · shape review (collection)`.

    `collection` is the collection's name, with or without its `bench/` prefix."""
    seats = f"{_count(members, 'member')} + {_count(explorers, 'explorer')}"
    name = collection.removeprefix("bench/")
    return f"**bench/{name}** · panel `{panel}` · {seats} · shape {shape} ({shape_by})\n\n"


def not_asked(skipped: Sequence[Skip]) -> str:
    """`Not asked: m1 (why); m2 (why)`, or nothing when everyone named was asked."""
    if not skipped:
        return ""
    return "Not asked: " + "; ".join(f"{skip.alias} ({skip.why})" for skip in skipped) + "\n\n"


def _seat_body(result: SeatResult) -> str:
    if result.status == "error":
        return f"_error: {_one_line(result.error) or 'no reason given'}_"
    if result.status == "timeout":
        return f"_{_one_line(result.error)}_"
    if result.status == "empty":
        return "_No text came back (often the model spent its whole output token budget, e.g. on reasoning)._"
    return result.answer.lstrip("\n").rstrip()


def section(result: SeatResult) -> str:
    """One seat: `## <label> — <alias>`, its call id, status and seconds, then its answer."""
    head = f"## {result.label} — {result.alias}\n`{result.call}` · {result.status} · {result.seconds:.1f}s"
    return f"{head}\n\n{_seat_body(result)}\n\n"


def footer(panel_calls: Sequence[str]) -> str:
    """How to record a verdict on each call of the panel."""
    calls = ", ".join([f"`{call}`" for call in panel_calls])
    listing = f" Calls: {calls}." if calls else ""
    return f"---\nWas an answer useful? Record a verdict per call id with {VERDICT_HOW}.{listing}\n"


def fallback_note(why: str) -> str:
    """The one line that says a merged reply was asked for but every answer follows instead."""
    return f"_Merged reply unavailable: {_one_line(why)}; every answer follows._\n\n"


def merged_footer(merger: SeatResult, seats: Sequence[SeatResult]) -> str:
    """After a merged answer: who merged it (and its call id) and how each seat went."""
    statuses = ", ".join([f"{seat.label} `{seat.alias}` {seat.status} (`{seat.call}`)" for seat in seats])
    return f"\n\n_Merged by `{merger.alias}` (`{merger.call}`) from: {statuses or 'no seats'}._\n\n"
