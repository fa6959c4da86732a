"""Counting each rate-limited gateway key's requests per clock minute, across processes, in the database.

The default `KeyMinuteCounter` (Redis counts instead when configured; see
`store.shared`). One upsert per request of a key that has a limit (keys
without one are never counted): the row for (key, this minute) is created
or incremented and the new count comes back in the same statement, so two
processes can never both take the last request of a minute. Rows of
minutes gone by are deleted by the first request of each new minute.
"""

from __future__ import annotations

from sqlalchemy import text
from sqlalchemy.engine import Connection

from panelgate.store.connections import Connections

_COUNT = text(
    "INSERT INTO key_minutes (key_id, minute, requests) VALUES (:key_id, :minute, 1) "
    "ON CONFLICT (key_id, minute) DO UPDATE SET requests = key_minutes.requests + 1 "
    "RETURNING requests"
)
_FORGET = text("DELETE FROM key_minutes WHERE minute < :minute")


class KeyMinutes:
    def __init__(self, connections: Connections) -> None:
        self._connections = connections
        self._pruned_minute = -1

    async def count(self, key_id: int, minute: int) -> int:
        """Count one request of `key_id` in `minute` (whole minutes since the epoch); the minute's total."""
        prune = minute != self._pruned_minute
        self._pruned_minute = minute

        def write(connection: Connection) -> int:
            if prune:
                connection.execute(_FORGET, {"minute": minute - 1})
            return int(connection.execute(_COUNT, {"key_id": key_id, "minute": minute}).scalar_one())

        return await self._connections.write_all_at_once(write)
