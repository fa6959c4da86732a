"""Rate counts and stated limits in Redis, for gateway processes that share one.

Keys, under the bench's prefix:

    rate:<rule id>:<period>   spent under a rule in a period; forgotten a little after the period ends
    stated                    a hash, one field per (endpoint, served id, measure): the provider's last word

Taking under every rule that covers a request is one Lua script: it reads
each counter, then adds to all of them or to none. A script rather than
MULTI/WATCH because the decision depends on the values read: a MULTI
cannot branch on them, and WATCH makes every process that raced for the
same window start over (six calls at once: up to fifteen retries), where
a script runs whole on the server, nothing else in between, in one round
trip. Adding tokens after a call depends on nothing read, so it is a plain
MULTI of INCRBY and PEXPIRE (both happen, or neither).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from itertools import product
from typing import Any

import orjson

from panelgate.core.rate_limits import StatedLimits
from panelgate.core.rate_windows import period_end, seconds_until
from panelgate.store.rate_book import stated_rows
from panelgate.store.records import RateRule, StatedRow
from panelgate.store.shared.protocols import Take
from panelgate.store.shared.redis_link import RedisLink

KEPT_AFTER_PERIOD = timedelta(minutes=10)
"""How long a period's count outlives it: past any clock difference between the processes."""
_TIMES = ("resets_at", "retry_at", "updated_at")

_TAKE_ALL = """
local amount = tonumber(ARGV[1])
for i = 1, #KEYS do
    if tonumber(redis.call('GET', KEYS[i]) or '0') + amount > tonumber(ARGV[2 * i]) then
        return i
    end
end
for i = 1, #KEYS do
    redis.call('INCRBY', KEYS[i], amount)
    redis.call('PEXPIRE', KEYS[i], ARGV[2 * i + 1])
end
return 0
"""
"""KEYS: one counter per rule; ARGV: the amount, then each rule's most and expiry (ms). Returns the
position (from 1) of the first rule without room, or 0 when the amount was counted under all."""


class RedisRateCounters:
    def __init__(self, link: RedisLink) -> None:
        self._link = link
        self._take_all = link.script(_TAKE_ALL)

    async def take_all(self, takes: Sequence[Take], amount: int) -> RateRule | None:
        if not takes:
            return None
        now = datetime.now(UTC)
        args: list[int] = [amount]
        for rule, period in takes:
            args += [rule.most, _kept_ms(rule, period, now)]
        keys = [self._counter(rule.id, period) for rule, period in takes]
        refused = int(await self._link.run(self._take_all(keys=keys, args=args)))
        return takes[refused - 1][0] if refused else None

    async def add(self, rule: RateRule, period: int, amount: int) -> None:
        key = self._counter(rule.id, period)
        async with self._link.client.pipeline(transaction=True) as both:
            both.incrby(key, amount)
            both.pexpire(key, _kept_ms(rule, period, datetime.now(UTC)))
            await self._link.run(both.execute())

    async def used(self, rule_ids: Sequence[int], periods: Sequence[int]) -> dict[tuple[int, int], int]:
        pairs = list(product(rule_ids, periods))
        if not pairs:
            return {}
        counts = await self._link.run(self._link.client.mget([self._counter(*pair) for pair in pairs]))
        return {pair: int(count) for pair, count in zip(pairs, counts, strict=True) if count is not None}

    async def record_stated(self, endpoint: str, served_id: str, stated: StatedLimits) -> None:
        rows = stated_rows(endpoint, served_id, stated, datetime.now(UTC))
        if not rows:
            return
        fields = [part for row in rows for part in (_stated_field(row), orjson.dumps(row))]
        await self._link.run(self._link.client.hset(self._link.key("stated"), items=fields))

    async def stated(self) -> list[StatedRow]:
        kept = await self._link.run(self._link.client.hgetall(self._link.key("stated")))
        rows = [_stated_row(raw) for raw in kept.values()]
        return sorted(rows, key=lambda row: (row.endpoint, row.served_id, row.measure))

    def _counter(self, rule_id: int, period: int) -> str:
        return self._link.key("rate", rule_id, period)


def _kept_ms(rule: RateRule, period: int, now: datetime) -> int:
    """Milliseconds the count of `period` is kept: until it is over, and a little longer."""
    left = seconds_until(period_end(rule.window, period), now)
    return int((left + KEPT_AFTER_PERIOD.total_seconds()) * 1000)


def _stated_field(row: StatedRow) -> bytes:
    """A row's field in the hash: its key columns, as JSON (served ids may hold any character)."""
    return orjson.dumps([row.endpoint, row.served_id, row.measure])


def _stated_row(raw: bytes | str) -> StatedRow:
    fields: dict[str, Any] = orjson.loads(raw)
    for name in _TIMES:
        if fields[name] is not None:
            fields[name] = datetime.fromisoformat(fields[name])
    return StatedRow(**fields)
