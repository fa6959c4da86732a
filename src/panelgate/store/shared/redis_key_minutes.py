"""Gateway keys' requests per clock minute in Redis, for gateway processes that share one.

One counter per (key, minute), `key-minute:<key id>:<minute>` under the
bench's prefix, raised by INCR and given its expiry by EXPIRE in one
MULTI/EXEC: nothing is decided on a value read first (the caller compares
the count that comes back), so neither a Lua script nor WATCH is needed,
and the two commands run together or not at all, so no counter is ever
left without an expiry. A minute's counter is gone two minutes after it
began; nothing has to prune old minutes.
"""

from __future__ import annotations

from panelgate.store.shared.redis_link import RedisLink

KEPT_S = 120
"""A minute's counter lives through its minute and the next, then Redis drops it."""


class RedisKeyMinutes:
    def __init__(self, link: RedisLink) -> None:
        self._link = link

    async def count(self, key_id: int, minute: int) -> int:
        counter = self._link.key("key-minute", key_id, minute)
        async with self._link.client.pipeline(transaction=True) as both:
            both.incr(counter)
            both.expire(counter, KEPT_S)
            requests, _ = await self._link.run(both.execute())
        return int(requests)
