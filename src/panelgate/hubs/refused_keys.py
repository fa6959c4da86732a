"""Admin keys a hub refused, remembered so the gateway never sends them again.

CLI Proxy API bans the caller's address for half an hour after five refused
management keys, and the other hubs log every refusal: a wrong key is sent
once, reported, and held back until someone stores a different one. Only a
hash of the key is kept, in this process's memory, per endpoint; another
key under the same endpoint is a new try.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime


def _digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


class RefusedKeys:
    def __init__(self) -> None:
        self._refused: dict[str, tuple[str, datetime]] = {}

    def refused_at(self, endpoint: str, key: str) -> datetime | None:
        """When the hub behind `endpoint` refused this very key, or None."""
        seen = self._refused.get(endpoint)
        return seen[1] if seen is not None and seen[0] == _digest(key) else None

    def note(self, endpoint: str, key: str) -> None:
        self._refused[endpoint] = (_digest(key), datetime.now(UTC))
