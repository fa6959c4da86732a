"""Endpoints: where models are served from, and which one is the default.

Exactly one endpoint is the default whenever any exist: the first one added
becomes it, and the default can only be removed when it is the last one. An
endpoint with models on the bench cannot be removed (retire them first);
retired models keep the name of the endpoint they were on. An endpoint's
extra headers are stored by name only: each value is kept in the key store
(`store/header_keys.py`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from sqlalchemy import Row, delete, func, insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from panelgate.store.audit import changed, write_audit
from panelgate.store.connections import Connections
from panelgate.store.errors import Conflict, NotFound, StoreError
from panelgate.store.header_keys import KeepSecret, check_header_keys, key_names
from panelgate.store.header_upgrade import move_header_values
from panelgate.store.records import EndpointRecord
from panelgate.store.rules import (
    ENDPOINT_APIS,
    ENDPOINT_KINDS,
    HUBS,
    Check,
    check_base_url,
    check_bool,
    check_choice,
    check_fields,
    check_key_name,
    check_name,
    storable,
)
from panelgate.store.tables import endpoints, models, utcnow

CHECKS: dict[str, Check] = {
    "base_url": check_base_url,
    "kind": lambda value: check_choice(value, ENDPOINT_KINDS, "kind"),
    "api": lambda value: check_choice(value, ENDPOINT_APIS, "api"),
    "key_name": check_key_name,
    "headers": check_header_keys,
    "hub": lambda value: None if value is None else check_choice(value, HUBS, "hub"),
    "admin_key_name": lambda value: check_key_name(value, "admin_key_name"),
    "preferred": lambda value: check_bool(value, "preferred"),
}


def checked_fields(fields: Mapping[str, Any]) -> dict[str, Any]:
    """The editable fields of an endpoint, each run through its rule."""
    return check_fields(fields, CHECKS, "an endpoint")


def record(row: Row[Any]) -> EndpointRecord:
    return EndpointRecord(
        name=row.name,
        base_url=row.base_url,
        kind=row.kind,
        api=row.api,
        key_name=row.key_name,
        header_keys=key_names(row.name, row.headers),
        is_default=bool(row.is_default),
        created_at=row.created_at,
        updated_at=row.updated_at,
        hub=row.hub,
        admin_key_name=row.admin_key_name,
        preferred=bool(row.preferred),
    )


async def find(connection: AsyncConnection, name: str) -> Row[Any] | None:
    if not storable(name):  # names nothing, and PostgreSQL would fail on it
        return None
    return (await connection.execute(select(endpoints).where(endpoints.c.name == name))).first()


async def require(
    connection: AsyncConnection, name: str, field: str = "name", missing: type[StoreError] = NotFound
) -> Row[Any]:
    """The endpoint's row, or `missing` (NotFound, or Invalid for a reference) listing the names."""
    row = await find(connection, name)
    if row is None:
        names = (await connection.execute(select(endpoints.c.name).order_by(endpoints.c.name))).scalars()
        known = ", ".join(names) or "none yet; add one first"
        raise missing(f"no endpoint named `{name}`; endpoints: {known}", field=field)
    return row


async def insert_endpoint(
    connection: AsyncConnection, name: str, fields: Mapping[str, Any], make_default: bool
) -> None:
    """Insert a checked endpoint; it becomes the default when asked or when it is the first."""
    count = (await connection.execute(select(func.count()).select_from(endpoints))).scalar_one()
    default = make_default or count == 0
    if default:
        await connection.execute(update(endpoints).where(endpoints.c.is_default).values(is_default=False))
    now = utcnow()
    await connection.execute(
        insert(endpoints).values(name=name, is_default=default, created_at=now, updated_at=now, **fields)
    )


class Endpoints:
    def __init__(self, connections: Connections) -> None:
        self._connections = connections

    async def get(self, name: str) -> EndpointRecord | None:
        async with self._connections.read() as connection:
            row = await find(connection, name)
        return None if row is None else record(row)

    async def add(
        self,
        name: str,
        base_url: str,
        *,
        kind: str = "provider",
        api: str = "chat",
        key_name: str | None = None,
        header_keys: Mapping[str, str] | None = None,
        make_default: bool = False,
        hub: str | None = None,
        admin_key_name: str | None = None,
        preferred: bool = False,
        actor: str,
    ) -> EndpointRecord:
        """Add an endpoint; `header_keys` names, per extra header, the key its value is kept under."""
        name = check_name(name, "endpoint")
        fields = checked_fields(
            {
                "base_url": base_url,
                "kind": kind,
                "api": api,
                "key_name": key_name,
                "headers": {header: {"key_name": kept} for header, kept in (header_keys or {}).items()},
                "hub": hub,
                "admin_key_name": admin_key_name,
                "preferred": preferred,
            }
        )
        async with self._connections.write() as connection:
            if await find(connection, name) is not None:
                raise Conflict(f"an endpoint named `{name}` already exists; pick another name", field="name")
            await insert_endpoint(connection, name, fields, make_default)
            added = record(await require(connection, name))
            await write_audit(
                connection, actor=actor, entity="endpoint", key=name, action="add", after=added.public()
            )
        return added

    async def update(self, name: str, changes: Mapping[str, Any], actor: str) -> EndpointRecord:
        fields = checked_fields(changes)
        async with self._connections.write() as connection:
            current = record(await require(connection, name))
            before, after = changed(current.public(), fields)
            if not after:
                return current
            await connection.execute(
                update(endpoints).where(endpoints.c.name == name).values(updated_at=utcnow(), **after)
            )
            await write_audit(
                connection,
                actor=actor,
                entity="endpoint",
                key=name,
                action="update",
                before=before,
                after=after,
            )
            return record(await require(connection, name))

    async def key_changed(
        self,
        name: str,
        key_name: str | None,
        *,
        cleared: bool,
        actor: str,
        which: Literal["key_name", "admin_key_name"] = "key_name",
    ) -> EndpointRecord:
        """Point `name`'s key (or, with `which`, its hub admin key) at `key_name`; record it set or cleared.

        The secret itself is kept by the caller in the key store; the audit
        row says only that it changed, and under which name.
        """
        checked = check_key_name(key_name, which)
        async with self._connections.write() as connection:
            row = await require(connection, name)
            before: dict[str, Any] = {which: getattr(row, which)}
            await connection.execute(
                update(endpoints)
                .where(endpoints.c.id == row.id)
                .values({which: checked, "updated_at": utcnow()})
            )
            secret = "key" if which == "key_name" else "admin_key"
            await write_audit(
                connection,
                actor=actor,
                entity="endpoint",
                key=name,
                action=secret.replace("_", "-"),
                before=before,
                after={which: checked, secret: "cleared" if cleared else "set"},
            )
            return record(await require(connection, name))

    async def set_default(self, name: str, actor: str) -> EndpointRecord:
        async with self._connections.write() as connection:
            row = await require(connection, name)
            if row.is_default:
                return record(row)
            was = (
                await connection.execute(select(endpoints.c.name).where(endpoints.c.is_default))
            ).scalar_one_or_none()
            await connection.execute(update(endpoints).where(endpoints.c.is_default).values(is_default=False))
            await connection.execute(
                update(endpoints).where(endpoints.c.name == name).values(is_default=True, updated_at=utcnow())
            )
            await write_audit(
                connection,
                actor=actor,
                entity="endpoint",
                key=name,
                action="default",
                before={"default": was},
                after={"default": name},
            )
            return record(await require(connection, name))

    async def remove(self, name: str, actor: str) -> None:
        async with self._connections.write() as connection:
            row = await require(connection, name)
            seated = (
                await connection.execute(
                    select(models.c.alias)
                    .where(models.c.endpoint_id == row.id, models.c.retired_at.is_(None))
                    .order_by(models.c.alias)
                )
            ).scalars()
            on_bench = list(seated)
            if on_bench:
                raise Conflict(
                    f"endpoint `{name}` still serves {', '.join(on_bench)}; retire those models first",
                    field="name",
                )
            others = (await connection.execute(select(func.count()).select_from(endpoints))).scalar_one() - 1
            if row.is_default and others:
                raise Conflict(
                    f"endpoint `{name}` is the default; make another endpoint the default first", field="name"
                )
            await connection.execute(delete(endpoints).where(endpoints.c.id == row.id))
            await write_audit(
                connection,
                actor=actor,
                entity="endpoint",
                key=name,
                action="remove",
                before=record(row).public(),
            )

    async def move_header_values(self, keep: KeepSecret) -> int:
        """Hand every header value an endpoint row still holds to `keep`, and drop those audit rows
        show; how many rows held one.

        Run at start, before any call: rows written before header values were
        kept as secrets are rewritten to name the key instead.
        """
        async with self._connections.read() as connection:
            if not await move_header_values(connection, None):
                return 0
        async with self._connections.write() as connection:
            return await move_header_values(connection, keep)

    async def list(self) -> list[EndpointRecord]:
        async with self._connections.read() as connection:
            rows = (await connection.execute(select(endpoints).order_by(endpoints.c.name))).all()
        return [record(row) for row in rows]
