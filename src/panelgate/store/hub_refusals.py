"""The admin key each hub endpoint's hub refused, by digest, shared by every gateway process."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select

from panelgate.store.connections import Connections
from panelgate.store.tables import hub_refusals
from panelgate.store.upsert import insert_for


class HubRefusals:
    def __init__(self, connections: Connections) -> None:
        self._connections = connections

    async def refused_at(self, endpoint: str, key_digest: str) -> datetime | None:
        """When the hub behind `endpoint` refused the key with this digest; None if it did not."""
        query = select(hub_refusals.c.refused_at).where(
            hub_refusals.c.endpoint == endpoint, hub_refusals.c.key_digest == key_digest
        )
        async with self._connections.read() as connection:
            found: datetime | None = (await connection.execute(query)).scalar()
            return found

    async def note(self, endpoint: str, key_digest: str, at: datetime) -> None:
        fields = {"key_digest": key_digest, "refused_at": at}
        async with self._connections.write(edits_config=False) as connection:
            statement = insert_for(connection)(hub_refusals).values(endpoint=endpoint, **fields)
            await connection.execute(
                statement.on_conflict_do_update(index_elements=["endpoint"], set_=fields)
            )
