"""Admin keys a hub refused, remembered so that no gateway process sends them again.

CLI Proxy API bans the caller's address for half an hour after five refused
management keys, and the other hubs log every refusal: a wrong key is sent
once, reported, and held back until someone stores a different one. The
store keeps one refusal per hub endpoint, as a digest of the key (never the
key), so every process of a cluster holds it back; another key under the
same endpoint is a new try.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime

from panelgate.store.hub_refusals import HubRefusals


def _digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


class RefusedKeys:
    def __init__(self, refusals: HubRefusals) -> None:
        self._refusals = refusals

    async def refused_at(self, endpoint: str, key: str) -> datetime | None:
        """When the hub behind `endpoint` refused this very key, or None."""
        return await self._refusals.refused_at(endpoint, _digest(key))

    async def note(self, endpoint: str, key: str) -> None:
        await self._refusals.note(endpoint, _digest(key), datetime.now(UTC))
