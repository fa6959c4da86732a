"""Rate limits: rules set by hand, what was spent under them, what providers say.

Rules are configuration (audited, exported, re-read by every process on an
edit) and live in the database. What was spent and what providers stated
is shared state that every gateway process must see the same: it is kept
by a `RateCounters` (the database, or Redis when configured; see
`store.shared`), which this book hands every count and read to, so
callers use one object whichever keeps it. A request is counted before it
is sent, under every rule that covers it at once, so two gateway processes
can never both take the last request of a window.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import delete, select

from panelgate.core.rate_limits import StatedLimits
from panelgate.core.rate_windows import MEASURES, WINDOWS
from panelgate.store.audit import write_audit
from panelgate.store.connections import Connections
from panelgate.store.errors import Invalid, NotFound
from panelgate.store.records import RateRule, StatedRow
from panelgate.store.tables import endpoints, rate_rules

if TYPE_CHECKING:
    from panelgate.store.shared.protocols import RateCounters, Take

LARGEST_ID = 2**31 - 1
"""The integer column's range on PostgreSQL: a larger id is simply not found (the drivers fail on it)."""


def stated_rows(endpoint: str, served_id: str, stated: StatedLimits, now: datetime) -> list[StatedRow]:
    """The rows to keep for what a provider said: one per measure, or one `requests` row for a bare wait."""
    rows = [
        StatedRow(
            endpoint=endpoint,
            served_id=served_id,
            measure=window.measure,
            most=window.limit,
            remaining=window.remaining,
            resets_at=window.resets_at,
            retry_at=stated.retry_at,
            quota=window.quota,
            style=stated.style,
            updated_at=now,
        )
        for window in stated.windows
    ]
    if rows or stated.retry_at is None:
        return rows
    wait = stated.retry_at
    return [StatedRow(endpoint, served_id, "requests", None, 0, wait, wait, "", stated.style, now)]


def _rule(row: Any) -> RateRule:
    return RateRule(row.id, row.endpoint, row.served_id, row.measure, row.window, row.most)


def _plain(rule: RateRule) -> dict[str, Any]:
    return {"served_id": rule.served_id, "measure": rule.measure, "window": rule.window, "most": rule.most}


class RateBook:
    def __init__(self, connections: Connections, counters: RateCounters) -> None:
        self._connections = connections
        self._counters = counters

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
        return await self._counters.take_all([(rule, period)], amount) is None

    async def take_all(self, takes: Sequence[Take], amount: int) -> RateRule | None:
        """Count `amount` under every (rule, period) if each has room; else nothing, and a rule without."""
        return await self._counters.take_all(takes, amount)

    async def add(self, rule: RateRule, period: int, amount: int) -> None:
        """Count `amount` under `rule` whatever the total (tokens, known only after the call)."""
        await self._counters.add(rule, period, amount)

    async def used(self, rule_ids: Sequence[int], periods: Sequence[int]) -> dict[tuple[int, int], int]:
        """What was spent under each of `rule_ids` in each of `periods`."""
        return await self._counters.used(rule_ids, periods)

    async def record_stated(self, endpoint: str, served_id: str, stated: StatedLimits) -> None:
        """Keep what a provider just said about `served_id`'s limits (one row per measure)."""
        await self._counters.record_stated(endpoint, served_id, stated)

    async def stated(self) -> list[StatedRow]:
        """What every provider last said about each model's limits, as every process learned it."""
        return await self._counters.stated()
