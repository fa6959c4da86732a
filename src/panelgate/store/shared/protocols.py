"""The three things every gateway process must see the same, as the interfaces both backends implement.

The database implements them by default (one machine, or a cluster on
PostgreSQL); Redis when `PANELGATE_REDIS_URL` is set. Callers never know
which: `store.shared.state.shared_state` picks once, at start.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Protocol

from panelgate.core.rate_limits import StatedLimits
from panelgate.store.records import ConversationRecord, RateRule, StatedRow

Take = tuple[RateRule, int]
"""A rule and the period (see `core.rate_windows.period_of`) to count under it."""


class RateCounters(Protocol):
    """What was spent under each hand-set rule per period, and what providers last stated."""

    async def take_all(self, takes: Sequence[Take], amount: int) -> RateRule | None:
        """Count `amount` under every (rule, period) if that keeps within each rule, in one step;
        otherwise count nothing and return a rule it would break."""
        ...

    async def add(self, rule: RateRule, period: int, amount: int) -> None:
        """Count `amount` whatever the total (tokens, known only after the call)."""
        ...

    async def used(self, rule_ids: Sequence[int], periods: Sequence[int]) -> dict[tuple[int, int], int]:
        """What was spent under each of `rule_ids` in each of `periods` (pairs never counted are absent)."""
        ...

    async def record_stated(self, endpoint: str, served_id: str, stated: StatedLimits) -> None:
        """Keep what a provider just said about `served_id`'s limits (one row per measure)."""
        ...

    async def stated(self) -> list[StatedRow]:
        """Every model's last stated limits."""
        ...


class KeyMinuteCounter(Protocol):
    """Requests per clock minute of each gateway key that has an rpm limit."""

    async def count(self, key_id: int, minute: int) -> int:
        """Count one request of `key_id` in `minute` (whole minutes since the epoch); the minute's total."""
        ...


class StickyRoutes(Protocol):
    """Which member each live route conversation sticks to: the lookup on every turn's path."""

    async def live(self, key: str, *, live_since: datetime) -> ConversationRecord | None:
        """The conversation with this key whose last turn is not older than `live_since`."""
        ...

    async def keep(self, conversation: ConversationRecord) -> None:
        """Remember `conversation` as it stands after a turn (called once the turn is on the record)."""
        ...

    async def claim(self, conversation: ConversationRecord, *, live_since: datetime) -> ConversationRecord:
        """Start `conversation` unless a live one holds its key already; the one that holds it now."""
        ...
