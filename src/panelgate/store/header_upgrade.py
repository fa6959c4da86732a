"""Header values written before they were secrets, moved out of the database when the server starts.

Until issue 22 an endpoint's extra headers were stored with their values,
and every add or import copied them into its audit row. A migration cannot
reach the key store (the key file and the environment belong to the
running server, not to Alembic), so the server does it at start, before
any call: each value an endpoints row holds goes to the key store under its
rule name (`header_key_name`) and the row is rewritten to name that key;
audit rows keep their header names and lose the values (the value a row
held is the one moved). Processes starting together may both do it: the
key store takes turns and both write the same thing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from panelgate.store.audit import write_audit
from panelgate.store.header_keys import KeepSecret, literal_values, references
from panelgate.store.tables import audit_log, endpoints


async def move_header_values(connection: AsyncConnection, keep: KeepSecret | None) -> int:
    """How many rows hold a header value; with `keep`, each is moved to it and the row rewritten."""
    found = 0
    for row in (
        await connection.execute(select(endpoints.c.id, endpoints.c.name, endpoints.c.headers))
    ).all():
        if not _holds_values(row.headers):
            continue
        found += 1
        if keep is None:
            continue
        for key_name, value in literal_values(row.name, row.headers).items():
            keep(key_name, value)
        stored = references(row.name, row.headers)
        await connection.execute(update(endpoints).where(endpoints.c.id == row.id).values(headers=stored))
        await write_audit(
            connection,
            actor="upgrade",
            entity="endpoint",
            key=row.name,
            action="header-values",
            after={"headers": stored, "values": "moved to the key store"},
        )
    return found + await _scrub_audit(connection, write=keep is not None)


async def _scrub_audit(connection: AsyncConnection, *, write: bool) -> int:
    """Endpoint audit rows that show a header value: the value replaced by the key name it moved to."""
    query = select(audit_log.c.id, audit_log.c.key, audit_log.c.before, audit_log.c.after).where(
        audit_log.c.entity == "endpoint"
    )
    found = 0
    for row in (await connection.execute(query)).all():
        sides = {"before": row.before, "after": row.after}
        dirty = {side: shown for side, shown in sides.items() if _shows_values(shown)}
        if not dirty:
            continue
        found += 1
        if write:
            scrubbed = {
                side: {**shown, "headers": references(row.key, shown["headers"])}
                for side, shown in dirty.items()
            }
            await connection.execute(update(audit_log).where(audit_log.c.id == row.id).values(**scrubbed))
    return found


def _shows_values(shown: Any) -> bool:
    return (
        isinstance(shown, Mapping)
        and isinstance(shown.get("headers"), Mapping)
        and _holds_values(shown["headers"])
    )


def _holds_values(headers: Any) -> bool:
    return isinstance(headers, Mapping) and any(not isinstance(kept, Mapping) for kept in headers.values())
