"""What every panel reads before it is seated, kept between edits.

Collections, the roster, the gateway limits, the endpoints and the hand-set
rate rules change when a person edits them, and are read by every panel;
reading them query by query per panel was most of a panel's cost. The copy
is dropped at once when this process, another worker of the same server, or
another server on the same Redis commits an edit (the next panel waits for
the re-read; see `config_stamp` and `shared/change_notices`).
Once it is older than `max_age_s`, the shared config version (one row,
bumped by every edit of every process) is asked in the background, and the
bench is re-read only when it moved: a separate server's edit shows within
about `max_age_s`, no panel waits for it, and an idle bench costs one tiny
read a second.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from panelgate.core.types import CollectionInfo, GatewayLimits, ModelInfo
from panelgate.store.collections import Collections
from panelgate.store.connections import Connections
from panelgate.store.endpoints import Endpoints
from panelgate.store.gateway import Gateway
from panelgate.store.models import Models
from panelgate.store.rate_book import RateBook
from panelgate.store.records import EndpointRecord, RateRule
from panelgate.store.shared_read import SharedRead

log = logging.getLogger(__name__)

RosterFacts = Callable[[dict[str, ModelInfo], dict[str, EndpointRecord]], Awaitable[dict[str, ModelInfo]]]
"""Merges into the roster what is known of each model beyond its own row (catalog facts, a paid hold)."""


@dataclass(frozen=True)
class BenchSnapshot:
    collections: dict[str, CollectionInfo]
    roster: dict[str, ModelInfo]
    limits: GatewayLimits
    endpoints: dict[str, EndpointRecord]
    rate_rules: tuple[RateRule, ...] = ()


class BenchView:
    def __init__(
        self,
        connections: Connections,
        *,
        endpoints: Endpoints,
        models: Models,
        collections: Collections,
        gateway: Gateway,
        rates: RateBook,
        max_age_s: float = 1.0,
    ) -> None:
        self._connections = connections
        self._endpoints = endpoints
        self._models = models
        self._collections = collections
        self._gateway = gateway
        self._rates = rates
        self._facts: RosterFacts | None = None
        self._max_age_s = max_age_s
        self._snapshot: BenchSnapshot | None = None
        self._generation = -1
        self._version = -1
        self._checked_at = 0.0
        self._rereads = SharedRead(self._read, "bench re-read")
        self._checking: asyncio.Task[None] | None = None

    async def snapshot(self) -> BenchSnapshot:
        if (found := self._current()) is not None:
            if time.monotonic() - self._checked_at > self._max_age_s and (
                self._checking is None or self._checking.done()
            ):
                self._checking = asyncio.create_task(self._check())
            return found
        return await self._reread()

    async def _reread(self) -> BenchSnapshot:
        """One read for every panel that found the copy unusable (`SharedRead`)."""
        return await self._rereads.get(self._connections.config_generation)

    def _current(self) -> BenchSnapshot | None:
        if self._snapshot is None or self._generation != self._connections.config_generation:
            return None
        return self._snapshot

    async def _check(self) -> None:
        """Re-read the bench if any process edited it since the copy was read."""
        self._checked_at = time.monotonic()
        try:
            if await self._connections.config_version() != self._version:
                await self._reread()
        except Exception:  # the old copy serves until the next try
            log.warning("could not re-read the bench", exc_info=True)

    def merge_facts_with(self, facts: RosterFacts) -> None:
        """Pass every read of the roster through `facts` (the catalog room's merge; the store has none)."""
        self._facts, self._snapshot = facts, None

    async def _read(self) -> BenchSnapshot:
        generation = self._connections.config_generation
        version = await self._connections.config_version()
        roster = await self._models.roster()
        endpoints = {e.name: e for e in await self._endpoints.list()}
        if self._facts is not None:
            roster = await self._facts(roster, endpoints)
        snapshot = BenchSnapshot(
            collections={c.name: c for c in await self._collections.list()},
            roster=roster,
            limits=await self._gateway.limits(),
            endpoints=endpoints,
            rate_rules=await self._rates.rules(),
        )
        self._snapshot, self._generation, self._version = snapshot, generation, version
        self._checked_at = time.monotonic()
        return snapshot
