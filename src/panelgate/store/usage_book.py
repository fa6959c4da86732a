"""The usage ledger: one row per upstream call, written in batches off the calls' path.

Every seat, merge, route turn and probe notes its call here; the notes are
written together about once a second (and at shutdown), so a busy gateway
adds one small transaction a second rather than one per call. A reader of
the ledger in this process sees its own notes at once (`flush` first).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import case, func, select
from sqlalchemy.engine import Connection

from panelgate.store.bulk import insert_rows
from panelgate.store.connections import Connections
from panelgate.store.tables import usage_ledger

log = logging.getLogger(__name__)
FLUSH_EVERY_S = 1.0


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


class UsageBook:
    def __init__(self, connections: Connections) -> None:
        self._connections = connections
        self._pending: list[UsageEntry] = []
        self._flushing: asyncio.Task[None] | None = None

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
        rows = [asdict(entry) for entry in entries]

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

    async def totals(self, since: datetime) -> list[UsageTotal]:
        """Per connection and model since `since`: calls, requests sent, failures, tokens."""
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
            .where(ledger.at >= since)
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


def _entry(row: Any) -> UsageEntry:
    fields = row._mapping
    return UsageEntry(**{name: fields[name] for name in UsageEntry.__dataclass_fields__})
