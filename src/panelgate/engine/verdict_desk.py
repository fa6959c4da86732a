"""Recording a verdict and telling which calls still need one, for every way of asking.

`/bench/verdict`, the dashboard's `/api/verdicts` and the MCP `verdict`
tool take the same fields (`call`, `useful`, `note`, `real`, `false`,
`better_than`, `source`), so they are read and checked here once: the same
mistake gets the same words in each. What a verdict may say (a failed seat
is not judged; `better_than` names answered seats of the same panel) is the
store's to decide, in the transaction that writes it (store/verdict_rules.py).
A call outside the caller's scope is answered as unknown, not as forbidden:
another collection's call is none of this caller's business, not even its
existence.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Literal

from panelgate.core.caller_scope import CallerScope
from panelgate.core.errors import BadRequest, NotFound
from panelgate.store import Database, OwedSeat
from panelgate.store import errors as store_errors
from panelgate.store.verdict_rules import MAX_BETTER_THAN
from panelgate.store.verdicts import MAX_CLAIMS

MAX_NOTE = 2000
OWED_WINDOW = timedelta(days=1)
"""Seats are owed a verdict for a day: older panels are history, not a to-do list."""
CALL_EXAMPLE = "p20261130-101500-a1b2.member1"
MAX_SOURCE = 40
SOURCE_PATTERN = rf"^[A-Za-z0-9._-]{{1,{MAX_SOURCE}}}$"
"""A verdict's `source` is a short token (`claude-code`), shown and filtered on, never free text."""
_SOURCE = re.compile(SOURCE_PATTERN)


@dataclass(frozen=True)
class VerdictAsked:
    """A verdict as sent; None for a field left out (it keeps the call's earlier value)."""

    call: str
    useful: bool
    note: str | None = None
    real: list[str] | None = None
    false: list[str] | None = None
    better_than: list[str] | None = None
    """Call ids of the same panel whose answers this one beat."""
    source: str | None = None
    """Where the verdict was given from, e.g. `claude-code`; None: not said."""


def _claims(fields: Mapping[str, Any], name: str) -> list[str] | None:
    value = fields.get(name)
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(c, str) for c in value):
        raise BadRequest(f"`{name}` must be a list of strings (verified claims)", param=name)
    if len(value) > MAX_CLAIMS:
        raise BadRequest(f"`{name}` holds more than {MAX_CLAIMS} claims", param=name)
    return [" ".join(c.split()) for c in value if c.strip()]


def _better_than(fields: Mapping[str, Any]) -> list[str] | None:
    value = fields.get("better_than")
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(c, str) and c.strip() for c in value):
        raise BadRequest(
            f"`better_than` must be a list of call ids of the same panel, e.g. [{CALL_EXAMPLE!r}]",
            param="better_than",
        )
    if len(value) > MAX_BETTER_THAN:
        raise BadRequest(f"`better_than` names more than {MAX_BETTER_THAN} calls", param="better_than")
    return [c.strip() for c in value]


def _source(fields: Mapping[str, Any]) -> str | None:
    value = fields.get("source")
    if value is None:
        return None
    if not isinstance(value, str) or not _SOURCE.fullmatch(value):
        raise BadRequest(
            f"`source` must be a short name of where the verdict comes from, e.g. `claude-code`: up to "
            f"{MAX_SOURCE} letters, digits, `-`, `_` or `.`",
            param="source",
        )
    return value


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
    return VerdictAsked(
        call.strip(),
        useful,
        note,
        _claims(fields, "real"),
        _claims(fields, "false"),
        _better_than(fields),
        _source(fields),
    )


async def calls_in_scope(db: Database, scope: CallerScope, calls: Sequence[str]) -> list[str]:
    """The calls of `calls` this caller may judge or read (all of them without a collection scope)."""
    if scope.collections is None:
        return list(calls)
    collections = await db.verdicts.collections_of(calls)
    return [call for call in calls if scope.allows(collections.get(call))]


async def owed_seats(db: Database, scope: CallerScope, now: datetime) -> list[OwedSeat]:
    """The seats of the caller's panels of the last `OWED_WINDOW` still owed a verdict, in its scope
    (a gateway key's panels are found by its id, since names need not be unique; a caller without
    a key owes the keyless panels: tracked in the database, they hold across processes and restarts)."""
    owed = await db.verdicts.owed(scope.name, now - OWED_WINDOW, key_id=scope.key_id)
    return [seat for seat in owed if scope.allows(seat.collection)]


async def record_verdict(
    db: Database, scope: CallerScope, asked: VerdictAsked
) -> Literal["created", "superseded", "unchanged"]:
    """Judge a call; fields left out keep the call's earlier note, claims and `better_than`."""
    unknown = NotFound(
        f"no seat has the call id `{asked.call}`; use a call id from a reply's bench.seats", param="call"
    )
    named = [asked.call, *(asked.better_than or ())]
    visible = await calls_in_scope(db, scope, named)
    if asked.call not in visible:
        raise unknown
    hidden = next((call for call in named if call not in visible), None)
    if hidden is not None:
        raise NotFound(
            f"`better_than` names `{hidden}`, which is no recorded call; name call ids from the same "
            "reply's bench.seats",
            param="better_than",
        )
    try:
        return await db.verdicts.record(
            asked.call,
            useful=asked.useful,
            note=asked.note,
            real=asked.real,
            false=asked.false,
            better_than=asked.better_than,
            actor=scope.name,
            source=asked.source,
        )
    except store_errors.NotFound as missing:
        if missing.field == "call":
            raise unknown from None
        raise
