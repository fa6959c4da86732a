"""The usage ledger: one row per upstream call, written in batches off the calls' path.

Every seat, merge, route turn and probe notes its call here; the notes are
written together about once a second (and at shutdown), so a busy gateway
adds one small transaction a second rather than one per call. A reader of
the ledger in this process sees its own notes at once (`flush` first).

The words of a failed call are not kept here; they are passed on as heard
to whoever listens (`listen_for_refusals`: the catalog learns a smaller
context window from them). What was spent is also summed per model and
served id (`spend`, optionally per collection: a panel's seats and a route
turn's calls carry their call id), which the catalog's prices turn into
costs.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, and_, case, func, null, or_, select
from sqlalchemy.engine import Connection

from panelgate.store.bulk import insert_rows
from panelgate.store.connections import Connections
from panelgate.store.tables import panels, route_turns, seats, usage_ledger

log = logging.getLogger(__name__)
FLUSH_EVERY_S = 1.0

RefusalListener = Callable[[str, str, str], None]
"""Told (endpoint, served id, the upstream's words) of every upstream call that failed; must not block."""


@dataclass(frozen=True)
class UsageEntry:
    at: datetime
    endpoint: str
    served_id: str
    alias: str
    caller: str
    purpose: str
    """panel, merge, route, shadow, probe, suite or onboard."""
    call: str | None
    status: str
    """ok, empty or error."""
    error_kind: str | None
    attempts: int
    tokens_in: int | None
    tokens_out: int | None
    tokens_reasoning: int | None
    seconds: float


ENTRY_FIELDS = tuple(f.name for f in fields(UsageEntry))
"""A ledger row's columns (`asdict` copies every value deeply: most of what a busy gateway's flush cost)."""


@dataclass(frozen=True)
class UsageTotal:
    """What one model on one connection was sent in a stretch of time."""

    endpoint: str
    alias: str
    calls: int
    attempts: int
    failed: int
    tokens_in: int
    tokens_out: int


@dataclass(frozen=True)
class Spend:
    """What calls to one served id on one connection (under one alias, for one collection) used."""

    endpoint: str
    served_id: str
    alias: str
    collection: str | None
    """The collection of the panel or route turn the calls were for (None: not asked, or a probe)."""
    calls: int
    tokens_in: int
    tokens_out: int
    untallied: int
    """Answered calls whose token counts the upstream did not report: their cost cannot be known."""


@dataclass(frozen=True)
class CallerSpend:
    """What one caller's calls to one served id on one connection used: the sums a key's budgets count."""

    caller: str
    endpoint: str
    served_id: str
    calls: int
    tokens_in: int
    tokens_out: int
    untallied: int
    """Answered calls whose token counts the upstream did not report."""


NOT_THE_CALLERS = ("shadow",)
"""Purposes the gateway spends on its own account, though a caller's turn prompted them: shadow seats
answer for evaluation only, so no key's budget pays for them."""


class UsageBook:
    def __init__(self, connections: Connections) -> None:
        self._connections = connections
        self._pending: list[UsageEntry] = []
        self._flushing: asyncio.Task[None] | None = None
        self._refusal_listeners: list[RefusalListener] = []

    def listen_for_refusals(self, listener: RefusalListener) -> None:
        self._refusal_listeners.append(listener)

    def heard_refusal(self, endpoint: str, served_id: str, words: str) -> None:
        """A call to `served_id` on `endpoint` failed saying `words` (already redacted): pass it on."""
        for listener in self._refusal_listeners:
            try:
                listener(endpoint, served_id, words)
            except Exception:  # a listener's fault must not fail the call that was heard
                log.warning("a refusal listener failed", exc_info=True)

    def note(self, entry: UsageEntry) -> None:
        """Keep `entry` for the next batch (written within about a second)."""
        self._pending.append(entry)
        if self._flushing is None or self._flushing.done():
            self._flushing = asyncio.get_running_loop().create_task(self._flush_soon())

    async def _flush_soon(self) -> None:
        await asyncio.sleep(FLUSH_EVERY_S)
        try:
            await self.flush()
        except Exception:  # the entries stay pending for the next try
            log.warning("could not write the usage ledger", exc_info=True)

    async def close(self) -> None:
        """Stop the timed write (its connection must not outlive the database) and write what is pending."""
        if self._flushing is not None and not self._flushing.done():
            self._flushing.cancel()
        await self.flush()

    async def flush(self) -> None:
        """Write every pending entry now."""
        entries, self._pending = self._pending, []
        if not entries:
            return
        rows = [{name: getattr(entry, name) for name in ENTRY_FIELDS} for entry in entries]

        def write(connection: Connection) -> None:
            insert_rows(connection, usage_ledger, rows)

        try:
            await self._connections.write_all_at_once(write)
        except BaseException:
            self._pending[:0] = entries
            raise

    async def recent(self, limit: int = 100) -> list[UsageEntry]:
        await self.flush()
        query = select(usage_ledger).order_by(usage_ledger.c.id.desc()).limit(max(1, limit))
        async with self._connections.read() as connection:
            rows = (await connection.execute(query)).all()
        return [_entry(row) for row in rows]

    async def totals(self, since: datetime, until: datetime | None = None) -> list[UsageTotal]:
        """Per connection and model from `since` (to `until`): calls, requests sent, failures, tokens."""
        await self.flush()
        ledger = usage_ledger.c
        query = (
            select(
                ledger.endpoint,
                ledger.alias,
                func.count(),
                func.sum(ledger.attempts),
                func.sum(case((ledger.status == "error", 1), else_=0)),
                func.coalesce(func.sum(ledger.tokens_in), 0),
                func.coalesce(func.sum(ledger.tokens_out), 0),
            )
            .where(*_between(since, until))
            .group_by(ledger.endpoint, ledger.alias)
            .order_by(ledger.endpoint, ledger.alias)
        )
        async with self._connections.read() as connection:
            rows = (await connection.execute(query)).all()
        return [
            UsageTotal(endpoint, alias, *(int(n or 0) for n in counts)) for endpoint, alias, *counts in rows
        ]

    async def for_calls(self, calls: Sequence[str]) -> list[UsageEntry]:
        """The ledger rows of these calls (a panel's seats, say)."""
        await self.flush()
        if not calls:
            return []
        query = select(usage_ledger).where(usage_ledger.c.call.in_(list(calls))).order_by(usage_ledger.c.id)
        async with self._connections.read() as connection:
            rows = (await connection.execute(query)).all()
        return [_entry(row) for row in rows]

    async def for_panel(self, panel: str) -> list[UsageEntry]:
        """The ledger rows of a panel's seats, its merger included, in the order they were noted."""
        await self.flush()
        calls = select(seats.c.call).where(seats.c.panel == panel)
        query = select(usage_ledger).where(usage_ledger.c.call.in_(calls)).order_by(usage_ledger.c.id)
        async with self._connections.read() as connection:
            rows = (await connection.execute(query)).all()
        return [_entry(row) for row in rows]

    async def spend(
        self, since: datetime, until: datetime | None = None, *, by_collection: bool = False
    ) -> list[Spend]:
        """What was used from `since` (to `until`) per connection, served id and alias, and per
        collection when asked: the sums costs are counted from."""
        await self.flush()
        ledger = usage_ledger.c
        collection = func.coalesce(panels.c.collection, route_turns.c.collection) if by_collection else None
        untallied = case(
            (and_(ledger.status != "error", or_(ledger.tokens_in.is_(None), ledger.tokens_out.is_(None))), 1),
            else_=0,
        )
        grouped: list[ColumnElement[Any]] = [ledger.endpoint, ledger.served_id, ledger.alias]
        query = select(
            *grouped,
            (collection if collection is not None else null()).label("collection"),
            func.count(),
            func.coalesce(func.sum(ledger.tokens_in), 0),
            func.coalesce(func.sum(ledger.tokens_out), 0),
            func.sum(untallied),
        ).where(*_between(since, until))
        if collection is not None:
            joined = (
                usage_ledger.outerjoin(seats, seats.c.call == ledger.call)
                .outerjoin(panels, panels.c.id == seats.c.panel)
                .outerjoin(route_turns, route_turns.c.call == ledger.call)
            )
            query = query.select_from(joined)
            grouped.append(collection)
        query = query.group_by(*grouped).order_by(*grouped)
        async with self._connections.read() as connection:
            rows = (await connection.execute(query)).all()
        return [
            Spend(endpoint, served_id, alias, found, *(int(n or 0) for n in counts))
            for endpoint, served_id, alias, found, *counts in rows
        ]

    async def spend_of_callers(
        self, since: Mapping[str, datetime], until: datetime | None = None
    ) -> list[CallerSpend]:
        """What each caller named in `since` used from its own start time (to `until`), per connection
        and served id, leaving out the gateway's own calls (`NOT_THE_CALLERS`)."""
        if not since:
            return []
        await self.flush()
        ledger = usage_ledger.c
        untallied = case(
            (and_(ledger.status != "error", or_(ledger.tokens_in.is_(None), ledger.tokens_out.is_(None))), 1),
            else_=0,
        )
        whose = or_(*(and_(ledger.caller == name, ledger.at >= start) for name, start in since.items()))
        query = (
            select(
                ledger.caller,
                ledger.endpoint,
                ledger.served_id,
                func.count(),
                func.coalesce(func.sum(ledger.tokens_in), 0),
                func.coalesce(func.sum(ledger.tokens_out), 0),
                func.sum(untallied),
            )
            .where(whose, ledger.purpose.not_in(NOT_THE_CALLERS))
            .group_by(ledger.caller, ledger.endpoint, ledger.served_id)
        )
        if until is not None:
            query = query.where(ledger.at < until)
        async with self._connections.read() as connection:
            rows = (await connection.execute(query)).all()
        return [
            CallerSpend(caller, endpoint, served_id, *(int(n or 0) for n in counts))
            for caller, endpoint, served_id, *counts in rows
        ]


def _between(since: datetime, until: datetime | None) -> list[ColumnElement[bool]]:
    conditions = [usage_ledger.c.at >= since]
    if until is not None:
        conditions.append(usage_ledger.c.at < until)
    return conditions


def _entry(row: Any) -> UsageEntry:
    fields = row._mapping
    return UsageEntry(**{name: fields[name] for name in UsageEntry.__dataclass_fields__})
