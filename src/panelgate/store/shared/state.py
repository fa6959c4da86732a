"""Where this process keeps what it shares with the others: chosen once, at start.

The database by default; Redis when `PANELGATE_REDIS_URL` is set, and then
only Redis (a process never mixes the two: two processes counting in
different places would each allow a full window).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from panelgate.settings import Settings
from panelgate.store.connections import Connections
from panelgate.store.key_minutes import KeyMinutes
from panelgate.store.routes import DatabaseStickyRoutes
from panelgate.store.shared.database_rates import DatabaseRateCounters
from panelgate.store.shared.protocols import KeyMinuteCounter, RateCounters, StickyRoutes

if TYPE_CHECKING:  # redis-py (about 6 MB and 150 ms) is imported only when Redis is configured
    from panelgate.store.shared.redis_link import RedisLink


@dataclass(frozen=True)
class SharedState:
    rates: RateCounters
    key_minutes: KeyMinuteCounter
    sticky: StickyRoutes
    redis: RedisLink | None = None
    """The Redis client the three use, closed with them; None on the database."""

    async def close(self) -> None:
        if self.redis is not None:
            await self.redis.close()


async def connect_redis(settings: Settings) -> RedisLink | None:
    """Redis when `PANELGATE_REDIS_URL` is set; raises `SharedStateUnavailable` when it does not answer."""
    url = settings.redis_url.get_secret_value() if settings.redis_url is not None else ""
    if not url:
        return None
    from panelgate.store.shared.redis_link import RedisLink

    return await RedisLink.connect(url, prefix=settings.redis_prefix, timeout_s=settings.redis_timeout_s)


def shared_state(connections: Connections, redis: RedisLink | None) -> SharedState:
    """The shared state on Redis when there is a link to it, else in the database."""
    if redis is None:
        return SharedState(
            DatabaseRateCounters(connections), KeyMinutes(connections), DatabaseStickyRoutes(connections)
        )
    from panelgate.store.shared.redis_key_minutes import RedisKeyMinutes
    from panelgate.store.shared.redis_rates import RedisRateCounters
    from panelgate.store.shared.redis_routes import RedisStickyRoutes

    return SharedState(RedisRateCounters(redis), RedisKeyMinutes(redis), RedisStickyRoutes(redis), redis)
