"""Retiring a model and undoing it.

Retiring takes the model off the bench and out of every collection's
members and merger, and writes down where it was (`models.restore`), so a
restore puts it back in the same collections at the same places. Nothing it
earned is deleted: evidence and verdicts stay with its id. A restore is
refused when it would break the bench's rules: its endpoint is gone, its
alias is now in use, or the same served id is on the bench again there.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Row, update
from sqlalchemy.ext.asyncio import AsyncConnection

from panelgate.store import collections as collection_rows
from panelgate.store import endpoints as endpoint_rows
from panelgate.store.audit import write_audit
from panelgate.store.errors import Conflict
from panelgate.store.model_rows import refuse_served_twice, refuse_taken_alias, require, select_models
from panelgate.store.records import ModelRecord
from panelgate.store.rules import check_text
from panelgate.store.tables import models, utcnow


async def find_retired(connection: AsyncConnection, alias: str) -> Row[Any]:
    """The latest retired model with this alias (or old alias); Conflict when it is on the bench."""
    query = (
        select_models()
        .where(models.c.alias == alias, models.c.retired_at.is_not(None))
        .order_by(models.c.retired_at.desc())
        .limit(1)
    )
    row = (await connection.execute(query)).first() or await require(connection, alias)
    if row.retired_at is None:
        raise Conflict(f"`{row.alias}` is on the bench; there is nothing to restore", field="alias")
    return row


async def retire(connection: AsyncConnection, model: ModelRecord, why: str, actor: str) -> None:
    why = check_text(why, "why", 500)
    where = await collection_rows.take_out(connection, model.alias, actor)
    restore = {"endpoint": model.endpoint, **where}
    await connection.execute(
        update(models)
        .where(models.c.id == model.id)
        .values(retired_at=utcnow(), retired_by=actor, retired_why=why, restore=restore)
    )
    await write_audit(
        connection,
        actor=actor,
        entity="model",
        key=model.alias,
        action="retire",
        after={"why": why, **restore},
    )


async def restore(connection: AsyncConnection, model: ModelRecord, actor: str) -> None:
    endpoint = None if model.endpoint_gone else await endpoint_rows.find(connection, model.endpoint)
    if endpoint is None:
        raise Conflict(
            f"`{model.alias}` was served by endpoint `{model.endpoint}`, which was removed; "
            "add the model again on an endpoint that serves it",
            field="alias",
        )
    advice = "rename or retire that model first"
    await refuse_taken_alias(connection, model.alias, model_id=model.id, advice=advice)
    await refuse_served_twice(connection, model.served_id, endpoint.id, endpoint.name)
    await connection.execute(
        update(models)
        .where(models.c.id == model.id)
        .values(retired_at=None, retired_by=None, retired_why="", restore=None)
    )
    where = model.restore or {}
    await collection_rows.put_back(connection, model.alias, where, actor)
    await write_audit(
        connection,
        actor=actor,
        entity="model",
        key=model.alias,
        action="restore",
        before={"why": model.retired_why, **where},
    )
