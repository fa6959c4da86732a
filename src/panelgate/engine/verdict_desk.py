"""Recording a verdict and telling which calls still need one, for every way of asking.

`/bench/verdict` and the MCP `verdict` tool take the same fields
(`call`, `useful`, `note`, `real`, `false`), so they are read and checked
here once: the same mistake gets the same words in both. A call outside
the caller's scope is answered as unknown, not as forbidden: another
collection's call is none of this caller's business, not even its existence.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from panelgate.core.caller_scope import CallerScope
from panelgate.core.errors import BadRequest, NotFound
from panelgate.store import Database
from panelgate.store import errors as store_errors
from panelgate.store.verdicts import MAX_CLAIMS

MAX_NOTE = 2000
CALL_EXAMPLE = "p20261130-101500-a1b2.member1"


@dataclass(frozen=True)
class VerdictAsked:
    """A verdict as sent; None for a field left out (it keeps the call's earlier value)."""

    call: str
    useful: bool
    note: str | None = None
    real: list[str] | None = None
    false: list[str] | None = None


def _claims(fields: Mapping[str, Any], name: str) -> list[str] | None:
    value = fields.get(name)
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(c, str) for c in value):
        raise BadRequest(f"`{name}` must be a list of strings (verified claims)", param=name)
    if len(value) > MAX_CLAIMS:
        raise BadRequest(f"`{name}` holds more than {MAX_CLAIMS} claims", param=name)
    return [" ".join(c.split()) for c in value if c.strip()]


def read_verdict(fields: Mapping[str, Any]) -> VerdictAsked:
    call = fields.get("call")
    if not isinstance(call, str) or not call.strip():
        raise BadRequest(f"`call` must be the call id of a seat, e.g. {CALL_EXAMPLE}", param="call")
    useful = fields.get("useful")
    if not isinstance(useful, bool):
        raise BadRequest("`useful` must be true or false", param="useful")
    note = fields.get("note")
    if note is not None and not isinstance(note, str):
        raise BadRequest("`note` must be a string", param="note")
    if note is not None and len(note) > MAX_NOTE:
        raise BadRequest(f"`note` is longer than {MAX_NOTE} characters", param="note")
    return VerdictAsked(call.strip(), useful, note, _claims(fields, "real"), _claims(fields, "false"))


async def calls_in_scope(db: Database, scope: CallerScope, calls: Sequence[str]) -> list[str]:
    """The calls of `calls` this caller may judge or read (all of them without a collection scope)."""
    if scope.collections is None:
        return list(calls)
    collections = await db.verdicts.collections_of(calls)
    return [call for call in calls if scope.allows(collections.get(call))]


async def record_verdict(
    db: Database, scope: CallerScope, asked: VerdictAsked
) -> Literal["created", "superseded", "unchanged"]:
    """Judge a call; fields left out keep the call's earlier note and claims."""
    unknown = NotFound(
        f"no seat has the call id `{asked.call}`; use a call id from a reply's bench.seats", param="call"
    )
    if not await calls_in_scope(db, scope, [asked.call]):
        raise unknown
    earlier = await db.verdicts.current(asked.call)
    try:
        return await db.verdicts.record(
            asked.call,
            useful=asked.useful,
            note=asked.note if asked.note is not None else (earlier.note if earlier else ""),
            real=asked.real if asked.real is not None else (earlier.real if earlier else ()),
            false=asked.false if asked.false is not None else (earlier.false if earlier else ()),
            actor=scope.name,
        )
    except store_errors.NotFound:
        raise unknown from None
