"""Models on the bench: add, rename, edit, retire, restore, and the roster.

A model keeps one integer id for life, so its evidence and verdicts follow
it through renames; every old alias is kept in `alias_history` and still
finds the model. A rename may not take an alias in use, an old alias (of
any model) or a retired model's alias; aliases differing only in case count
as the same. The alias rules live in `model_rows.py`, retiring and
restoring in `retirement.py`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlalchemy import insert, update

from panelgate.core.types import ModelInfo
from panelgate.store import collections as collection_rows
from panelgate.store import endpoints as endpoint_rows
from panelgate.store import retirement
from panelgate.store.audit import changed, write_audit
from panelgate.store.connections import Connections
from panelgate.store.errors import Invalid
from panelgate.store.model_rows import (
    by_id,
    checked_facts,
    former_aliases,
    locate,
    on_bench,
    record,
    refuse_served_twice,
    refuse_taken_alias,
    require,
    select_models,
    with_history,
)
from panelgate.store.records import ModelRecord
from panelgate.store.rules import check_alias, check_required_text
from panelgate.store.tables import alias_history, models, utcnow


class Models:
    def __init__(self, connections: Connections) -> None:
        self._connections = connections

    async def get(self, alias: str) -> ModelRecord | None:
        """The model by its alias or any old alias, retired or not."""
        async with self._connections.read() as connection:
            row = await locate(connection, alias)
            return None if row is None else await with_history(connection, row)

    async def roster(self) -> dict[str, ModelInfo]:
        """Every model by alias, retired ones too; a model on the bench wins a shared alias."""
        query = select_models().order_by(models.c.retired_at.is_(None), models.c.retired_at)
        async with self._connections.read() as connection:
            rows = (await connection.execute(query)).all()
        return {row.alias: record(row).to_info() for row in rows}

    async def add(
        self,
        alias: str,
        served_id: str,
        endpoint: str,
        *,
        role: str = "general",
        ad_hoc: bool = False,
        context_window: int | None = None,
        max_output: int | None = None,
        vision: bool | None = None,
        tools: bool | None = None,
        options: Mapping[str, Any] | None = None,
        actor: str,
    ) -> ModelRecord:
        alias = check_alias(alias)
        served_id = check_required_text(served_id, "served_id", 512)
        facts = checked_facts(
            {
                "role": role,
                "ad_hoc": ad_hoc,
                "context_window": context_window,
                "max_output": max_output,
                "vision": vision,
                "tools": tools,
                "options": options,
            }
        )
        async with self._connections.write() as connection:
            where = await endpoint_rows.require(connection, endpoint, "endpoint", missing=Invalid)
            await refuse_taken_alias(connection, alias)
            await refuse_served_twice(connection, served_id, where.id, where.name)
            inserted = await connection.execute(
                insert(models)
                .values(
                    alias=alias,
                    served_id=served_id,
                    endpoint_id=where.id,
                    retired_why="",
                    created_at=utcnow(),
                    **facts,
                )
                .returning(models.c.id)
            )
            model_id = inserted.scalar_one()
            added = record((await connection.execute(select_models().where(models.c.id == model_id))).one())
            await write_audit(
                connection, actor=actor, entity="model", key=alias, action="add", after=added.public()
            )
        return added

    async def rename(self, alias: str, new_alias: str, actor: str) -> ModelRecord:
        """Give the model a new alias; the old one keeps finding it, and collections follow."""
        new_alias = check_alias(new_alias, "new_alias")
        async with self._connections.write() as connection:
            row = await on_bench(connection, alias, "renaming")
            if new_alias == row.alias:
                return await with_history(connection, row)
            await refuse_taken_alias(connection, new_alias, model_id=row.id, retired_too=True)
            await connection.execute(update(models).where(models.c.id == row.id).values(alias=new_alias))
            await connection.execute(
                insert(alias_history).values(
                    model_id=row.id, old_alias=row.alias, new_alias=new_alias, at=utcnow()
                )
            )
            await collection_rows.rewrite_alias(connection, row.alias, new_alias, actor)
            await write_audit(
                connection,
                actor=actor,
                entity="model",
                key=new_alias,
                action="rename",
                before={"alias": row.alias},
                after={"alias": new_alias},
            )
            return await with_history(connection, await require(connection, new_alias))

    async def update(self, alias: str, changes: Mapping[str, Any], actor: str) -> ModelRecord:
        """Change role, ad hoc flag, hand-set facts or call options."""
        facts = checked_facts(changes)
        async with self._connections.write() as connection:
            row = await on_bench(connection, alias, "editing")
            before, after = changed(record(row).public(), facts)
            if after:
                await connection.execute(update(models).where(models.c.id == row.id).values(**after))
                await write_audit(
                    connection,
                    actor=actor,
                    entity="model",
                    key=row.alias,
                    action="update",
                    before=before,
                    after=after,
                )
            return await with_history(connection, await require(connection, row.alias))

    async def retire(self, alias: str, why: str, actor: str) -> ModelRecord:
        """Take the model off the bench and out of collections; nothing it earned is deleted."""
        async with self._connections.write() as connection:
            row = await on_bench(connection, alias, "retiring")
            await retirement.retire(connection, record(row), why, actor)
            return await with_history(connection, await by_id(connection, row.id))

    async def restore(self, alias: str, actor: str) -> ModelRecord:
        """Put a retired model back on the bench and into the collections it left."""
        async with self._connections.write() as connection:
            row = await retirement.find_retired(connection, alias)
            await retirement.restore(connection, record(row), actor)
            return await with_history(connection, await by_id(connection, row.id))

    async def list(self, include_retired: bool = False) -> list[ModelRecord]:
        query = select_models().order_by(models.c.alias, models.c.id)
        if not include_retired:
            query = query.where(models.c.retired_at.is_(None))
        async with self._connections.read() as connection:
            rows = (await connection.execute(query)).all()
            former = await former_aliases(connection, [row.id for row in rows])
        return [record(row, former.get(row.id, ())) for row in rows]
