"""Gateway keys' requests per minute, counted by every process, the same on the database and on Redis."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from panelgate.settings import Settings
from panelgate.store import Database
from panelgate.store.shared.redis_key_minutes import KEPT_S
from tests.support.shared_state import BACKENDS, processes


@pytest.fixture(params=BACKENDS)
async def pair(
    request: pytest.FixtureRequest, db: Database, settings: Settings, redis_url: str
) -> AsyncIterator[list[Database]]:
    async with processes(request.param, settings, redis_url) as both:
        yield both


async def test_requests_at_once_on_two_processes_each_get_their_own_count(pair: list[Database]):
    one, two = pair
    counts = await asyncio.gather(*(process.key_minutes.count(7, 29_000_000) for process in [one, two] * 4))
    assert sorted(counts) == list(range(1, 9))


async def test_each_key_and_each_minute_count_from_one(pair: list[Database]):
    one, two = pair
    assert [await one.key_minutes.count(7, 29_000_000) for _ in range(2)] == [1, 2]
    assert await two.key_minutes.count(8, 29_000_000) == 1
    assert await two.key_minutes.count(7, 29_000_001) == 1


async def test_a_minutes_counter_is_gone_from_redis_after_the_next_minute(
    db: Database, settings: Settings, redis_url: str
):
    async with processes("redis", settings, redis_url, count=1) as (one,):
        await one.key_minutes.count(7, 29_000_000)
        assert one.shared.redis is not None
        left_s = await one.shared.redis.client.ttl(one.shared.redis.key("key-minute", 7, 29_000_000))
        assert 0 < left_s <= KEPT_S
