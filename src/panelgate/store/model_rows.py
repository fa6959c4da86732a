"""How a model row is read, found by alias and checked, for the model repositories.

Shared by `models.py` (add, rename, update) and `retirement.py` so both
apply the same alias rules: an alias, once used, never names another model;
a lookup finds a model by its alias on the bench, then by an old alias
(renames keep history), then among retired models.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlalchemy import Row, Select, func, select, true
from sqlalchemy.ext.asyncio import AsyncConnection

from panelgate.core.types import ROLES
from panelgate.store.errors import Conflict, NotFound
from panelgate.store.records import ModelRecord
from panelgate.store.rules import (
    Check,
    check_bool,
    check_choice,
    check_fields,
    check_optional_bool,
    check_optional_int,
    check_options,
)
from panelgate.store.tables import alias_history, endpoints, models

LARGEST_WINDOW = 100_000_000
CHECKS: dict[str, Check] = {
    "role": lambda value: check_choice(value, ROLES, "role"),
    "ad_hoc": lambda value: check_bool(value, "ad_hoc"),
    "context_window": lambda value: check_optional_int(value, "context_window", 1, LARGEST_WINDOW),
    "max_output": lambda value: check_optional_int(value, "max_output", 1, LARGEST_WINDOW),
    "vision": lambda value: check_optional_bool(value, "vision"),
    "tools": lambda value: check_optional_bool(value, "tools"),
    "options": check_options,
}
EDITABLE = tuple(CHECKS)


def checked_facts(fields: Mapping[str, Any]) -> dict[str, Any]:
    """The editable fields of a model (role, ad hoc, hand-set facts, options), each run through its rule."""
    return check_fields(fields, CHECKS, "a model")


def select_models() -> Select[Any]:
    joined = models.outerjoin(endpoints, models.c.endpoint_id == endpoints.c.id)
    return select(models, endpoints.c.name.label("endpoint_name")).select_from(joined)


def record(row: Row[Any], former: tuple[str, ...] = ()) -> ModelRecord:
    gone = row.endpoint_name is None
    return ModelRecord(
        id=row.id,
        alias=row.alias,
        served_id=row.served_id,
        endpoint=(row.restore or {}).get("endpoint", "") if gone else row.endpoint_name,
        role=row.role,
        ad_hoc=bool(row.ad_hoc),
        context_window=row.context_window,
        max_output=row.max_output,
        vision=row.vision,
        tools=row.tools,
        options=dict(row.options),
        retired_at=row.retired_at,
        retired_by=row.retired_by,
        retired_why=row.retired_why,
        restore=row.restore,
        created_at=row.created_at,
        endpoint_gone=gone,
        former_aliases=former,
    )


async def former_aliases(connection: AsyncConnection, model_ids: list[int]) -> dict[int, tuple[str, ...]]:
    query = (
        select(alias_history.c.model_id, alias_history.c.old_alias)
        .where(alias_history.c.model_id.in_(model_ids))
        .order_by(alias_history.c.id)
    )
    found: dict[int, tuple[str, ...]] = {}
    for model_id, old in (await connection.execute(query)).all():
        found[model_id] = (*found.get(model_id, ()), old)
    return found


async def with_history(connection: AsyncConnection, row: Row[Any]) -> ModelRecord:
    return record(row, (await former_aliases(connection, [row.id])).get(row.id, ()))


async def locate(connection: AsyncConnection, alias: str) -> Row[Any] | None:
    """The model `alias` names: on the bench first, then by an old alias, then retired."""
    live = select_models().where(models.c.alias == alias, models.c.retired_at.is_(None))
    row: Row[Any] | None = (await connection.execute(live)).first()
    if row is not None:
        return row
    renamed = (
        select(alias_history.c.model_id)
        .where(alias_history.c.old_alias == alias)
        .order_by(alias_history.c.id.desc())
        .limit(1)
    )
    model_id = (await connection.execute(renamed)).scalar_one_or_none()
    if model_id is not None:
        row = (await connection.execute(select_models().where(models.c.id == model_id))).first()
    else:
        retired = select_models().where(models.c.alias == alias).order_by(models.c.retired_at.desc()).limit(1)
        row = (await connection.execute(retired)).first()
    return row


async def require(connection: AsyncConnection, alias: str) -> Row[Any]:
    row = await locate(connection, alias)
    if row is None:
        raise NotFound(f"no model `{alias}` on the bench or among retired models", field="alias")
    return row


async def refuse_taken_alias(
    connection: AsyncConnection,
    alias: str,
    *,
    model_id: int | None = None,
    retired_too: bool = False,
    advice: str = "pick another",
) -> None:
    """Conflict when `alias` (ignoring case) is in use, an old alias, or (when asked) a retired model's."""
    lowered = func.lower(alias)
    others = models.c.id != model_id if model_id is not None else true()
    live = select(models.c.alias).where(
        func.lower(models.c.alias) == lowered, models.c.retired_at.is_(None), others
    )
    holder = (await connection.execute(live)).scalar()
    if holder is not None:
        raise Conflict(f"alias `{alias}` is taken by `{holder}` on the bench; {advice}", field="alias")
    earlier = (
        select(models.c.alias)
        .join(alias_history, alias_history.c.model_id == models.c.id)
        .where(func.lower(alias_history.c.old_alias) == lowered)
    )
    owner = (await connection.execute(earlier)).scalar()
    if owner is not None:
        raise Conflict(
            f"alias `{alias}` is an earlier name of `{owner}` and keeps pointing at it; {advice}",
            field="alias",
        )
    if retired_too:
        retired = select(models.c.alias).where(
            func.lower(models.c.alias) == lowered, models.c.retired_at.is_not(None), others
        )
        if (await connection.execute(retired)).scalar() is not None:
            raise Conflict(
                f"alias `{alias}` belongs to a retired model, which may be restored; {advice}", field="alias"
            )


async def refuse_served_twice(
    connection: AsyncConnection, served_id: str, endpoint_id: int, endpoint: str
) -> None:
    query = select(models.c.alias).where(
        models.c.endpoint_id == endpoint_id, models.c.served_id == served_id, models.c.retired_at.is_(None)
    )
    holder = (await connection.execute(query)).scalar()
    if holder is not None:
        raise Conflict(
            f"`{served_id}` on endpoint `{endpoint}` is already on the bench as `{holder}`", field="served_id"
        )


async def on_bench(connection: AsyncConnection, alias: str, doing: str) -> Row[Any]:
    row = await require(connection, alias)
    if row.retired_at is not None:
        raise Conflict(f"`{row.alias}` is retired; restore it before {doing} it", field="alias")
    return row


async def by_id(connection: AsyncConnection, model_id: int) -> Row[Any]:
    row: Row[Any] = (await connection.execute(select_models().where(models.c.id == model_id))).one()
    return row
