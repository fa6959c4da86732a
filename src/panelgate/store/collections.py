"""Collections: named lists of members a caller asks for as `bench/<name>`.

Members are stored by alias, in the order given. Besides the repository,
this module holds the member surgery other changes need inside their own
transaction: a rename rewrites members and mergers, a retirement takes a
model out (remembering where), a restore puts it back.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from sqlalchemy import Row, delete, insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from panelgate.core.types import OFFERED_TOOLS, REPLY_MODES, SHAPES, VERDICTS_OWED, CollectionInfo
from panelgate.store.audit import changed, write_audit
from panelgate.store.connections import Connections
from panelgate.store.errors import Invalid, NotFound
from panelgate.store.rules import (
    MAX_DESCRIPTION,
    MAX_SHADOWS,
    check_alias,
    check_choice,
    check_int,
    check_name,
    check_tags,
    check_text,
)
from panelgate.store.tables import collections, models, utcnow


def checked(info: CollectionInfo, bench: Iterable[str]) -> CollectionInfo:
    """`info` cleaned, or `Invalid` naming the first rule it breaks.

    `bench` is every alias on the bench (not retired): members and the merger
    must be among them.
    """
    on_bench = set(bench)
    name = check_name(info.name, "collection")
    if isinstance(info.members, str) or not isinstance(info.members, Sequence) or not info.members:
        raise Invalid("members must be a non-empty list of aliases", field="members")
    members = tuple(check_alias(member, "members") for member in info.members)
    if len(set(members)) != len(members):
        raise Invalid("members must not repeat an alias", field="members")
    _require_on_bench(members, on_bench, "members")
    shape = None if info.shape is None else check_choice(info.shape, SHAPES, "shape")
    merger = check_text(info.merger, "merger", 64)
    if merger:
        _require_on_bench((check_alias(merger, "merger"),), on_bench, "merger")
    return CollectionInfo(
        name=name,
        members=members,
        shape=shape,
        description=check_text(info.description, "description", MAX_DESCRIPTION),
        tags=check_tags(info.tags),
        reply=check_choice(info.reply, REPLY_MODES, "reply"),
        merger=merger,
        shadows=check_int(info.shadows, "shadows", 0, MAX_SHADOWS),
        offered_tools=check_choice(info.offered_tools, OFFERED_TOOLS, "offered_tools"),
        verdicts_owed=check_choice(info.verdicts_owed, VERDICTS_OWED, "verdicts_owed"),
    )


def _require_on_bench(aliases: Sequence[str], on_bench: set[str], field: str) -> None:
    missing = [alias for alias in aliases if alias not in on_bench]
    if missing:
        raise Invalid(
            f"{', '.join(missing)} {'is' if len(missing) == 1 else 'are'} not on the bench; "
            "add or restore the model first, or check the alias",
            field=field,
        )


def info(row: Row[Any]) -> CollectionInfo:
    return CollectionInfo(
        name=row.name,
        members=tuple(row.members),
        shape=row.shape,
        description=row.description,
        tags=tuple(row.tags),
        reply=row.reply,
        merger=row.merger,
        shadows=row.shadows,
        offered_tools=row.offered_tools,
        verdicts_owed=row.verdicts_owed,
    )


def public(collection: CollectionInfo) -> dict[str, Any]:
    """What an audit row or an export shows of a collection."""
    return {
        "name": collection.name,
        "members": list(collection.members),
        "shape": collection.shape,
        "description": collection.description,
        "tags": list(collection.tags),
        "reply": collection.reply,
        "merger": collection.merger,
        "shadows": collection.shadows,
        "offered_tools": collection.offered_tools,
        "verdicts_owed": collection.verdicts_owed,
    }


async def bench_aliases(connection: AsyncConnection) -> set[str]:
    query = select(models.c.alias).where(models.c.retired_at.is_(None))
    return set((await connection.execute(query)).scalars())


async def find(connection: AsyncConnection, name: str) -> CollectionInfo | None:
    row = (await connection.execute(select(collections).where(collections.c.name == name))).first()
    return None if row is None else info(row)


async def write(
    connection: AsyncConnection, collection: CollectionInfo, actor: str, *, imported: bool = False
) -> str:
    """Create or replace a checked collection with its audit row: "added", "changed" or "unchanged"."""
    current = await find(connection, collection.name)
    values = public(collection)
    now = utcnow()
    if current is None:
        await connection.execute(insert(collections).values(created_at=now, updated_at=now, **values))
        action = "import" if imported else "add"
        await write_audit(
            connection, actor=actor, entity="collection", key=collection.name, action=action, after=values
        )
        return "added"
    before, after = changed(public(current), values)
    if not after:
        return "unchanged"
    await connection.execute(
        update(collections).where(collections.c.name == collection.name).values(updated_at=now, **after)
    )
    action = "import" if imported else "update"
    await write_audit(
        connection,
        actor=actor,
        entity="collection",
        key=collection.name,
        action=action,
        before=before,
        after=after,
    )
    return "changed"


async def _naming(connection: AsyncConnection, alias: str) -> list[CollectionInfo]:
    rows = (await connection.execute(select(collections).order_by(collections.c.name))).all()
    return [info(row) for row in rows if alias in row.members or row.merger == alias]


async def rewrite_alias(connection: AsyncConnection, old: str, new: str, actor: str) -> None:
    """After a rename: every collection names the model by its new alias."""
    for collection in await _naming(connection, old):
        members = tuple(new if member == old else member for member in collection.members)
        merger = new if collection.merger == old else collection.merger
        await _replace(connection, collection, members, merger, actor)


async def take_out(connection: AsyncConnection, alias: str, actor: str) -> dict[str, Any]:
    """Remove `alias` from every collection; returns where it was, for `put_back`."""
    places: list[dict[str, Any]] = []
    merger_of: list[str] = []
    for collection in await _naming(connection, alias):
        if alias in collection.members:
            places.append({"name": collection.name, "position": collection.members.index(alias)})
        if collection.merger == alias:
            merger_of.append(collection.name)
        members = tuple(member for member in collection.members if member != alias)
        merger = "" if collection.merger == alias else collection.merger
        await _replace(connection, collection, members, merger, actor)
    return {"collections": places, "merger_of": merger_of}


async def put_back(connection: AsyncConnection, alias: str, where: dict[str, Any], actor: str) -> None:
    """Undo `take_out` in the collections that still exist, at the old place where it still fits."""
    positions = {place["name"]: int(place["position"]) for place in where.get("collections", ())}
    merger_of = set(where.get("merger_of", ()))
    for name in sorted(set(positions) | merger_of):
        collection = await find(connection, name)
        if collection is None:
            continue
        members = list(collection.members)
        if name in positions and alias not in members:
            members.insert(min(positions[name], len(members)), alias)
        merger = alias if name in merger_of and not collection.merger else collection.merger
        await _replace(connection, collection, tuple(members), merger, actor)


async def _replace(
    connection: AsyncConnection, collection: CollectionInfo, members: tuple[str, ...], merger: str, actor: str
) -> None:
    if members == collection.members and merger == collection.merger:
        return
    await connection.execute(
        update(collections)
        .where(collections.c.name == collection.name)
        .values(members=list(members), merger=merger, updated_at=utcnow())
    )
    await write_audit(
        connection,
        actor=actor,
        entity="collection",
        key=collection.name,
        action="update",
        before={"members": list(collection.members), "merger": collection.merger},
        after={"members": list(members), "merger": merger},
    )


class Collections:
    def __init__(self, connections: Connections) -> None:
        self._connections = connections

    async def get(self, name: str) -> CollectionInfo | None:
        async with self._connections.read() as connection:
            return await find(connection, name)

    async def save(self, collection: CollectionInfo, actor: str) -> CollectionInfo:
        """Create the collection or replace it whole."""
        async with self._connections.write() as connection:
            clean = checked(collection, await bench_aliases(connection))
            await write(connection, clean, actor)
        return clean

    async def delete(self, name: str, actor: str) -> None:
        async with self._connections.write() as connection:
            current = await find(connection, name)
            if current is None:
                raise NotFound(f"no collection named `{name}`", field="name")
            await connection.execute(delete(collections).where(collections.c.name == name))
            await write_audit(
                connection,
                actor=actor,
                entity="collection",
                key=name,
                action="remove",
                before=public(current),
            )

    async def list(self) -> list[CollectionInfo]:
        async with self._connections.read() as connection:
            rows = (await connection.execute(select(collections).order_by(collections.c.name))).all()
        return [info(row) for row in rows]
