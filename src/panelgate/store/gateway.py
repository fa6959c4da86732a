"""Gateway settings a person sets at run time: seats per panel, seat deadline, shadow budget, decision model.

Stored one row per setting; a setting never saved reads as its default, so a
fresh database needs no seeding.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import asdict, replace
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncConnection

from panelgate.core.types import EXPLORER_RULES, GatewayLimits
from panelgate.store.audit import changed, write_audit
from panelgate.store.collections import bench_aliases
from panelgate.store.connections import Connections
from panelgate.store.errors import Invalid
from panelgate.store.rules import (
    Check,
    check_alias,
    check_bool,
    check_choice,
    check_fields,
    check_int,
    check_number,
    check_text,
)
from panelgate.store.tables import gateway_settings, utcnow
from panelgate.store.upsert import insert_for


def check_decision_model(value: object) -> str:
    """A model alias, or empty for none (whether it is on the bench is `decision_model_on_bench`'s)."""
    alias = check_text(value, "decision_model", 64)
    return check_alias(alias, "decision_model") if alias else ""


def decision_model_on_bench(changes: Mapping[str, Any], bench: Collection[str]) -> None:
    """Refuse a decision model that is not a model on the bench, naming where to look."""
    alias = changes.get("decision_model")
    if alias and alias not in bench:
        raise Invalid(
            f"decision_model `{alias}` is not a model on the bench; name one by its bench alias "
            "(`panelgate models` lists them), or send an empty value for none",
            field="decision_model",
        )


CHECKS: dict[str, Check] = {
    "max_calls": lambda value: check_int(value, "max_calls", 1, 10),
    "max_explorers": lambda value: check_int(value, "max_explorers", 0, 4),
    "seat_deadline_s": lambda value: check_number(value, "seat_deadline_s", 1, 3600),
    "shadow_calls_per_day": lambda value: check_int(value, "shadow_calls_per_day", 0, 100_000),
    "decision_model": check_decision_model,
    "explorer_rule": lambda value: check_choice(value, EXPLORER_RULES, "explorer_rule"),
    "explorer_floor": lambda value: check_int(value, "explorer_floor", 0, 10_000),
    "retry_empty_length": lambda value: check_bool(value, "retry_empty_length"),
    "detect_quota_notices": lambda value: check_bool(value, "detect_quota_notices"),
    "swap_alerts": lambda value: check_bool(value, "swap_alerts"),
    "skip_slow_on_long_prompts": lambda value: check_bool(value, "skip_slow_on_long_prompts"),
}


def checked_limits(changes: Mapping[str, Any]) -> dict[str, Any]:
    return check_fields(changes, CHECKS, "the gateway")


async def read_limits(connection: AsyncConnection) -> GatewayLimits:
    rows = (await connection.execute(select(gateway_settings.c.key, gateway_settings.c.value))).all()
    saved = {key: value for key, value in rows if key in GatewayLimits.__dataclass_fields__}
    return replace(GatewayLimits(), **checked_limits(saved))


async def write_limits(
    connection: AsyncConnection, changes: Mapping[str, Any], actor: str, action: str
) -> bool:
    """Save checked settings with their audit row; False when nothing changed."""
    before, after = changed(asdict(await read_limits(connection)), changes)
    if not after:
        return False
    insert = insert_for(connection)
    now = utcnow()
    for key, value in after.items():
        statement = insert(gateway_settings).values(key=key, value=value, updated_at=now)
        await connection.execute(
            statement.on_conflict_do_update(
                index_elements=[gateway_settings.c.key], set_={"value": value, "updated_at": now}
            )
        )
    await write_audit(
        connection, actor=actor, entity="gateway", key="limits", action=action, before=before, after=after
    )
    return True


class Gateway:
    def __init__(self, connections: Connections) -> None:
        self._connections = connections

    async def limits(self) -> GatewayLimits:
        async with self._connections.read() as connection:
            return await read_limits(connection)

    async def update(self, changes: Mapping[str, Any], actor: str) -> GatewayLimits:
        clean = checked_limits(changes)
        async with self._connections.write() as connection:
            decision_model_on_bench(clean, await bench_aliases(connection))
            await write_limits(connection, clean, actor, "update")
            return await read_limits(connection)
