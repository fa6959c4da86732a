"""Rate counts and stated limits in the database: the default, and enough for a cluster on PostgreSQL.

A rule's count is taken by one statement that adds the amount only while
the total stays within the rule and returns the new total. A request
covered by several rules takes under each in one transaction, in rule
order (so two transactions never wait on each other's rows), and gives
back what it took if a later rule has no room: no other process can see
the counts in between, so a request that is refused counts nowhere.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

from sqlalchemy import select, text
from sqlalchemy.engine import Connection

from panelgate.core.rate_limits import StatedLimits
from panelgate.store.bulk import insert_rows
from panelgate.store.connections import Connections
from panelgate.store.rate_book import stated_rows
from panelgate.store.records import RateRule, StatedRow
from panelgate.store.shared.protocols import Take
from panelgate.store.tables import rate_stated, rate_usage, utcnow

_TAKE = text(
    "INSERT INTO rate_usage (rule_id, period, used) "
    "SELECT CAST(:rule_id AS INTEGER), CAST(:period AS INTEGER), CAST(:amount AS INTEGER) "
    "WHERE CAST(:amount AS INTEGER) <= CAST(:most AS INTEGER) "
    "ON CONFLICT (rule_id, period) DO UPDATE SET used = rate_usage.used + excluded.used "
    "WHERE rate_usage.used + excluded.used <= CAST(:most AS INTEGER) "
    "RETURNING used"
)
_GIVE_BACK = text("UPDATE rate_usage SET used = used - :amount WHERE rule_id = :rule_id AND period = :period")
_ADD = text(
    "INSERT INTO rate_usage (rule_id, period, used) VALUES (:rule_id, :period, :amount) "
    "ON CONFLICT (rule_id, period) DO UPDATE SET used = rate_usage.used + excluded.used"
)


class DatabaseRateCounters:
    def __init__(self, connections: Connections) -> None:
        self._connections = connections

    async def take_all(self, takes: Sequence[Take], amount: int) -> RateRule | None:
        if not takes:
            return None
        ordered = sorted(takes, key=lambda take: (take[0].id, take[1]))

        def write(connection: Connection) -> RateRule | None:
            taken: list[dict[str, Any]] = []
            for rule, period in ordered:
                params = {"rule_id": rule.id, "period": period, "amount": amount, "most": rule.most}
                if connection.execute(_TAKE, params).first() is None:
                    for done in taken:
                        connection.execute(_GIVE_BACK, done)
                    return rule
                taken.append(params)
            return None

        return await self._connections.write_all_at_once(write)

    async def add(self, rule: RateRule, period: int, amount: int) -> None:
        def write(connection: Connection) -> None:
            connection.execute(_ADD, {"rule_id": rule.id, "period": period, "amount": amount})

        await self._connections.write_all_at_once(write)

    async def used(self, rule_ids: Sequence[int], periods: Sequence[int]) -> dict[tuple[int, int], int]:
        if not rule_ids:
            return {}
        query = select(rate_usage).where(rate_usage.c.rule_id.in_(rule_ids), rate_usage.c.period.in_(periods))
        async with self._connections.read() as connection:
            rows = (await connection.execute(query)).all()
        return {(row.rule_id, row.period): row.used for row in rows}

    async def record_stated(self, endpoint: str, served_id: str, stated: StatedLimits) -> None:
        rows = [asdict(row) for row in stated_rows(endpoint, served_id, stated, utcnow())]
        if not rows:
            return

        def write(connection: Connection) -> None:
            insert_rows(connection, rate_stated, rows, on_conflict=("endpoint", "served_id", "measure"))

        await self._connections.write_all_at_once(write)

    async def stated(self) -> list[StatedRow]:
        async with self._connections.read() as connection:
            rows = (await connection.execute(select(rate_stated))).all()
        return [StatedRow(*row) for row in rows]
