"""The Redis link: it refuses to start without an answer, fails a command at once when Redis goes
away or hangs, works again when Redis is back, and never shows Redis's password."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from panelgate.store.shared import SharedStateUnavailable
from panelgate.store.shared.redis_key_minutes import RedisKeyMinutes
from panelgate.store.shared.redis_link import RedisLink, redis_address
from tests.support.gateway import free_port
from tests.support.redis_server import RedisServer
from tests.support.shared_state import fresh_prefix

PASSWORD = "hunter2-not-for-logs"


@pytest.fixture
def own_redis() -> Iterator[RedisServer]:
    """A Redis of this test's own, with a password, to stop or freeze."""
    with RedisServer(password=PASSWORD) as server:
        yield server


async def link_to(server: RedisServer, timeout_s: float = 2.0) -> RedisLink:
    return await RedisLink.connect(server.url, prefix=fresh_prefix(), timeout_s=timeout_s)


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("redis://:pw@10.1.2.3:6380/2", "redis://10.1.2.3:6380/2"),
        ("rediss://app:pw@cache.internal/0?password=pw2", "rediss://app@cache.internal/0"),
        ("redis://[::1]:6379", "redis://[::1]:6379"),
        ("unix://:pw@/run/redis.sock?db=3", "unix:///run/redis.sock"),
        ("redis://:pw@cache:sixty/0", "redis://cache/0"),
    ],
)
def test_redis_is_named_without_its_password(url: str, shown: str):
    assert redis_address(url) == shown


async def test_a_redis_that_does_not_answer_at_start_is_refused_by_name():
    port = free_port()
    with pytest.raises(SharedStateUnavailable) as refused:
        await RedisLink.connect(f"redis://:{PASSWORD}@127.0.0.1:{port}/0", prefix="p", timeout_s=2)
    said = refused.value.message
    assert f"PANELGATE_REDIS_URL names redis://127.0.0.1:{port}/0, which did not answer" in said
    assert "unset PANELGATE_REDIS_URL" in said and PASSWORD not in said


async def test_a_wrong_password_is_refused_at_start(own_redis: RedisServer):
    with pytest.raises(SharedStateUnavailable) as refused:
        await RedisLink.connect(own_redis.url.replace(PASSWORD, "wrong"), prefix="p", timeout_s=2)
    said = refused.value.message
    assert f"names redis://127.0.0.1:{own_redis.port}/0, which refused the gateway" in said
    assert "check the user and password" in said and "wrong" not in said and PASSWORD not in said


async def test_a_url_that_is_not_redis_is_refused_at_start():
    with pytest.raises(SharedStateUnavailable, match="not a Redis URL"):
        await RedisLink.connect("http://:pw@127.0.0.1:1/", prefix="p", timeout_s=2)


async def test_a_redis_gone_mid_run_fails_each_command_at_once_and_is_used_again_when_back(
    own_redis: RedisServer,
):
    link = await link_to(own_redis)
    counter = RedisKeyMinutes(link)
    try:
        assert await counter.count(1, 100) == 1
        own_redis.stop()
        for _ in range(2):
            with pytest.raises(SharedStateUnavailable) as failed:
                await counter.count(1, 100)
            assert f"(Redis at redis://127.0.0.1:{own_redis.port}/0) is unreachable" in failed.value.message
            assert failed.value.status == 503 and PASSWORD not in failed.value.message
        own_redis.start()  # the same port, empty: nothing was saved
        assert await counter.count(1, 100) == 1
    finally:
        await link.close()


async def test_a_redis_that_hangs_fails_the_command_after_the_timeout(own_redis: RedisServer):
    link = await link_to(own_redis, timeout_s=0.5)
    counter = RedisKeyMinutes(link)
    try:
        assert await counter.count(1, 100) == 1
        own_redis.freeze()
        with pytest.raises(SharedStateUnavailable, match="is unreachable") as failed:
            await counter.count(1, 100)
        assert "Timeout" in failed.value.message
    finally:
        own_redis.thaw()
        await link.close()
