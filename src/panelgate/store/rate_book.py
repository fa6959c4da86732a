"""Rate limits in the shared store: rules set by hand, what was spent under them, what providers say.

A rule's count is taken by one statement that adds the amount only while
the total stays within the rule and returns the new total, so two gateway
processes can never both take the last request of a window. Rules are
configuration (audited, exported, re-read by every process on an edit);
what providers state is not: it is written as it is learned and read back
by every process, so all of them wait for the same reset.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import delete, select, text
from sqlalchemy.engine import Connection

from panelgate.core.rate_limits import StatedLimits
from panelgate.core.rate_windows import MEASURES, WINDOWS, MeasureRule, Window
from panelgate.store.audit import write_audit
from panelgate.store.bulk import insert_rows
from panelgate.store.connections import Connections
from panelgate.store.errors import Invalid, NotFound
from panelgate.store.tables import endpoints, rate_rules, rate_stated, rate_usage, utcnow

_TAKE = text(
    "INSERT INTO rate_usage (rule_id, period, used) "
    "SELECT CAST(:rule_id AS INTEGER), CAST(:period AS INTEGER), CAST(:amount AS INTEGER) "
    "WHERE CAST(:amount AS INTEGER) <= CAST(:most AS INTEGER) "
    "ON CONFLICT (rule_id, period) DO UPDATE SET used = rate_usage.used + excluded.used "
    "WHERE rate_usage.used + excluded.used <= CAST(:most AS INTEGER) "
    "RETURNING used"
)
LARGEST_ID = 2**31 - 1
"""The integer column's range on PostgreSQL: a larger id is simply not found (the drivers fail on it)."""
_ADD = text(
    "INSERT INTO rate_usage (rule_id, period, used) VALUES (:rule_id, :period, :amount) "
    "ON CONFLICT (rule_id, period) DO UPDATE SET used = rate_usage.used + excluded.used"
)


@dataclass(frozen=True)
class RateRule:
    id: int
    endpoint: str
    served_id: str | None
    """None: the rule holds for everything the connection serves, together."""
    measure: MeasureRule
    window: Window
    most: int

    def covers(self, endpoint: str, served_id: str) -> bool:
        return self.endpoint == endpoint and self.served_id in (None, served_id)


@dataclass(frozen=True)
class StatedRow:
    endpoint: str
    served_id: str
    measure: str
    most: int | None
    remaining: int | None
    resets_at: datetime | None
    retry_at: datetime | None
    quota: str
    style: str
    updated_at: datetime


def _rule(row: Any) -> RateRule:
    return RateRule(row.id, row.endpoint, row.served_id, row.measure, row.window, row.most)


def _plain(rule: RateRule) -> dict[str, Any]:
    return {"served_id": rule.served_id, "measure": rule.measure, "window": rule.window, "most": rule.most}


class RateBook:
    def __init__(self, connections: Connections) -> None:
        self._connections = connections

    async def rules(self) -> tuple[RateRule, ...]:
        """Every hand-set rule (panels read them from the bench snapshot, which keeps them between edits)."""
        async with self._connections.read() as connection:
            rows = (await connection.execute(select(rate_rules).order_by(rate_rules.c.id))).all()
        return tuple(_rule(row) for row in rows)

    async def set_rule(
        self, endpoint: str, served_id: str | None, measure: str, window: str, most: int, *, actor: str
    ) -> RateRule:
        """Set (or replace) the rule for this connection or model, measure and window."""
        if measure not in MEASURES:
            raise Invalid(f"`measure` must be one of {', '.join(MEASURES)}", field="measure")
        if window not in WINDOWS:
            raise Invalid(f"`window` must be one of {', '.join(WINDOWS)}", field="window")
        if isinstance(most, bool) or not isinstance(most, int) or most < 1:
            raise Invalid("`most` must be a whole number of at least 1", field="most")
        served = served_id.strip() if isinstance(served_id, str) and served_id.strip() else None
        known = select(endpoints.c.name).where(endpoints.c.name == endpoint)
        same = select(rate_rules).where(
            rate_rules.c.endpoint == endpoint,
            rate_rules.c.served_id.is_(None) if served is None else rate_rules.c.served_id == served,
            rate_rules.c.measure == measure,
            rate_rules.c.window == window,
        )
        async with self._connections.write(edits_config=True) as connection:
            if (await connection.execute(known)).first() is None:
                raise NotFound(f"no endpoint `{endpoint}`", field="endpoint")
            earlier = (await connection.execute(same)).first()
            if earlier is not None:
                await connection.execute(delete(rate_rules).where(rate_rules.c.id == earlier.id))
            values = {"endpoint": endpoint, "served_id": served, "measure": measure, "window": window}
            added = rate_rules.insert().values(**values, most=most).returning(rate_rules.c.id)
            rule_id = (await connection.execute(added)).scalar_one()
            rule = RateRule(rule_id, endpoint, served, measure, window, most)
            await write_audit(
                connection,
                actor=actor,
                entity="rate_rule",
                key=endpoint,
                action="set",
                before=None if earlier is None else _plain(_rule(earlier)),
                after=_plain(rule),
            )
        return rule

    async def delete_rule(self, rule_id: int, *, actor: str) -> None:
        async with self._connections.write(edits_config=True) as connection:
            found = select(rate_rules).where(rate_rules.c.id == rule_id)
            row = (await connection.execute(found)).first() if 1 <= rule_id <= LARGEST_ID else None
            if row is None:
                raise NotFound(f"no rate rule {rule_id}", field="id")
            await connection.execute(delete(rate_rules).where(rate_rules.c.id == rule_id))
            rule = _rule(row)
            await write_audit(
                connection, actor=actor, entity="rate_rule", key=rule.endpoint, action="delete",
                before=_plain(rule), after=None,
            )  # fmt: skip

    async def take(self, rule: RateRule, period: int, amount: int) -> bool:
        """Count `amount` under `rule` in `period` if that keeps within it; False (nothing counted) if not."""

        def write(connection: Connection) -> bool:
            params = {"rule_id": rule.id, "period": period, "amount": amount, "most": rule.most}
            return connection.execute(_TAKE, params).first() is not None

        return await self._connections.write_all_at_once(write)

    async def add(self, rule: RateRule, period: int, amount: int) -> None:
        """Count `amount` under `rule` whatever the total (tokens, known only after the call)."""

        def write(connection: Connection) -> None:
            connection.execute(_ADD, {"rule_id": rule.id, "period": period, "amount": amount})

        await self._connections.write_all_at_once(write)

    async def used(self, rule_ids: Sequence[int], periods: Sequence[int]) -> dict[tuple[int, int], int]:
        """What was spent under each of `rule_ids` in each of `periods`."""
        if not rule_ids:
            return {}
        query = select(rate_usage).where(rate_usage.c.rule_id.in_(rule_ids), rate_usage.c.period.in_(periods))
        async with self._connections.read() as connection:
            rows = (await connection.execute(query)).all()
        return {(row.rule_id, row.period): row.used for row in rows}

    async def record_stated(self, endpoint: str, served_id: str, stated: StatedLimits) -> None:
        """Keep what a provider just said about `served_id`'s limits (one row per measure)."""
        now = utcnow()
        rows = [
            {
                "endpoint": endpoint,
                "served_id": served_id,
                "measure": window.measure,
                "most": window.limit,
                "remaining": window.remaining,
                "resets_at": window.resets_at,
                "retry_at": stated.retry_at,
                "quota": window.quota,
                "style": stated.style,
                "updated_at": now,
            }
            for window in stated.windows
        ]
        if not rows and stated.retry_at is not None:
            rows = [
                {
                    "endpoint": endpoint, "served_id": served_id, "measure": "requests", "most": None,
                    "remaining": 0, "resets_at": stated.retry_at, "retry_at": stated.retry_at, "quota": "",
                    "style": stated.style, "updated_at": now,
                }
            ]  # fmt: skip
        if not rows:
            return

        def write(connection: Connection) -> None:
            insert_rows(connection, rate_stated, rows, on_conflict=("endpoint", "served_id", "measure"))

        await self._connections.write_all_at_once(write)

    async def stated(self) -> list[StatedRow]:
        async with self._connections.read() as connection:
            rows = (await connection.execute(select(rate_stated))).all()
        return [StatedRow(*row) for row in rows]
