"""Several gateway processes' stores, sharing their state in the database or in one Redis.

The store's tests of the shared state hold both backends to one contract:
each test gets the same processes, once with the database keeping what
they share and once with Redis (under a key prefix of the test's own).
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager

from pydantic import SecretStr

from panelgate.settings import Settings
from panelgate.store import Database

BACKENDS = ("database", "redis")


def fresh_prefix() -> str:
    return f"unit-{uuid.uuid4().hex[:12]}"


def on_redis(settings: Settings, redis_url: str, prefix: str | None = None) -> Settings:
    return settings.model_copy(
        update={"redis_url": SecretStr(redis_url), "redis_prefix": prefix or fresh_prefix()}
    )


@asynccontextmanager
async def processes(
    backend: str, settings: Settings, redis_url: str, count: int = 2
) -> AsyncIterator[list[Database]]:
    """`count` stores opened on `settings`' database, as `count` gateway processes would open them."""
    if backend == "redis":
        settings = on_redis(settings, redis_url)
    async with AsyncExitStack() as stack:
        opened = []
        for _ in range(count):
            database = await Database.open(settings)
            stack.push_async_callback(database.close)
            opened.append(database)
        yield opened
