"""What every panel reads before it is seated, kept between edits.

Collections, the roster, the gateway limits and the endpoints change when a
person edits them, and are read by every panel; reading them four queries at
a time per panel was most of a panel's cost. The copy is dropped at once when
this process commits an edit, and re-read at most `max_age_s` after another
gateway process may have made one.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass

from panelgate.core.types import CollectionInfo, GatewayLimits, ModelInfo
from panelgate.store.collections import Collections
from panelgate.store.connections import Connections
from panelgate.store.endpoints import Endpoints
from panelgate.store.gateway import Gateway
from panelgate.store.models import Models
from panelgate.store.records import EndpointRecord


@dataclass(frozen=True)
class BenchSnapshot:
    collections: dict[str, CollectionInfo]
    roster: dict[str, ModelInfo]
    limits: GatewayLimits
    endpoints: dict[str, EndpointRecord]


class BenchView:
    def __init__(
        self,
        connections: Connections,
        *,
        endpoints: Endpoints,
        models: Models,
        collections: Collections,
        gateway: Gateway,
        max_age_s: float = 1.0,
    ) -> None:
        self._connections = connections
        self._endpoints = endpoints
        self._models = models
        self._collections = collections
        self._gateway = gateway
        self._max_age_s = max_age_s
        self._snapshot: BenchSnapshot | None = None
        self._generation = -1
        self._read_at = 0.0
        self._reading = asyncio.Lock()

    def _fresh(self) -> BenchSnapshot | None:
        if (
            self._snapshot is None
            or self._generation != self._connections.config_generation
            or time.monotonic() - self._read_at > self._max_age_s
        ):
            return None
        return self._snapshot

    async def snapshot(self) -> BenchSnapshot:
        if (found := self._fresh()) is not None:
            return found
        async with self._reading:  # one re-read for every panel that found the copy stale
            if (found := self._fresh()) is not None:
                return found
            generation = self._connections.config_generation
            snapshot = BenchSnapshot(
                collections={c.name: c for c in await self._collections.list()},
                roster=await self._models.roster(),
                limits=await self._gateway.limits(),
                endpoints={e.name: e for e in await self._endpoints.list()},
            )
            self._snapshot, self._generation, self._read_at = snapshot, generation, time.monotonic()
            return snapshot
