"""The audit log: who changed what a person edits, when, and from what to what.

`write_audit` is called by every editing method on the connection of its own
change, so a change and its audit row commit or vanish together. Rows hold
names, aliases and settings, never a secret (the store never sees one).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from sqlalchemy import Row, insert, select
from sqlalchemy.ext.asyncio import AsyncConnection

from panelgate.store.connections import Connections
from panelgate.store.records import AuditRecord
from panelgate.store.tables import audit_log, utcnow


async def write_audit(
    connection: AsyncConnection,
    *,
    actor: str,
    entity: str,
    key: str,
    action: str,
    before: Mapping[str, Any] | None = None,
    after: Mapping[str, Any] | None = None,
) -> None:
    await connection.execute(
        insert(audit_log).values(
            at=utcnow(),
            actor=actor,
            entity=entity,
            key=key,
            action=action,
            before=_plain(before),
            after=_plain(after),
        )
    )


def changed(before: Mapping[str, Any], after: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The fields that differ, as (before, after) — what an update's audit row shows."""
    keys = [key for key in after if before.get(key) != after[key]]
    return {key: before.get(key) for key in keys}, {key: after[key] for key in keys}


class AuditLog:
    def __init__(self, connections: Connections) -> None:
        self._connections = connections

    async def list(self, limit: int = 100, entity: str | None = None) -> list[AuditRecord]:
        """The newest changes first, optionally of one kind of entity."""
        query = select(audit_log).order_by(audit_log.c.id.desc()).limit(max(1, limit))
        if entity is not None:
            query = query.where(audit_log.c.entity == entity)
        async with self._connections.read() as connection:
            rows = (await connection.execute(query)).all()
        return [_record(row) for row in rows]


def _record(row: Row[Any]) -> AuditRecord:
    return AuditRecord(
        id=row.id,
        at=row.at,
        actor=row.actor,
        entity=row.entity,
        key=row.key,
        action=row.action,
        before=row.before,
        after=row.after,
    )


def _plain(value: Any) -> Any:
    """`value` as JSON can hold it: times as ISO text, tuples as lists."""
    if value is None:
        return None
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, Mapping):
        return {str(key): _plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    return value
