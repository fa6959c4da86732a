"""Rate counts and stated limits shared by gateway processes, the same on the database and on Redis."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import pytest

from panelgate.core.rate_limits import StatedLimits, StatedWindow
from panelgate.core.rate_windows import period_end, period_of, seconds_until
from panelgate.settings import Settings
from panelgate.store import Database
from panelgate.store.shared.redis_rates import KEPT_AFTER_PERIOD
from tests.support.shared_state import BACKENDS, on_redis, processes


@pytest.fixture(params=BACKENDS)
async def pair(
    request: pytest.FixtureRequest, bench: Database, settings: Settings, redis_url: str
) -> AsyncIterator[list[Database]]:
    """Two gateway processes' stores on the bench's database, sharing their counts in one backend."""
    async with processes(request.param, settings, redis_url) as both:
        yield both


@pytest.fixture
async def redis_pair(bench: Database, settings: Settings, redis_url: str) -> AsyncIterator[list[Database]]:
    async with processes("redis", settings, redis_url) as both:
        yield both


async def test_six_takes_at_once_from_two_processes_count_exactly_three(pair: list[Database]):
    one, two = pair
    rule = await one.rates.set_rule("local", None, "requests", "minute", 3, actor="ann")
    taken = await asyncio.gather(*(process.rates.take(rule, 1000, 1) for process in [one, two] * 3))
    assert sorted(taken) == [False, False, False, True, True, True]
    assert await two.rates.used([rule.id], [1000]) == {(rule.id, 1000): 3}


async def test_a_request_one_rule_holds_counts_under_no_other(pair: list[Database]):
    one, two = pair
    connection = await one.rates.set_rule("local", None, "requests", "minute", 5, actor="ann")
    model = await one.rates.set_rule("local", "org/alpha-7b", "requests", "minute", 1, actor="ann")
    both = [(connection, 1000), (model, 1000)]
    assert await one.rates.take_all(both, 1) is None
    assert await two.rates.take_all(both, 1) == model
    assert await one.rates.used([connection.id, model.id], [1000]) == {
        (connection.id, 1000): 1,
        (model.id, 1000): 1,
    }


async def test_the_next_period_starts_afresh_and_more_than_a_rule_allows_is_refused(pair: list[Database]):
    one, two = pair
    rule = await one.rates.set_rule("local", None, "requests", "minute", 3, actor="ann")
    assert await one.rates.take(rule, 1000, 3)
    assert not await two.rates.take(rule, 1000, 1)
    assert await two.rates.take(rule, 1001, 1)
    assert not await one.rates.take(rule, 1002, 4)
    assert await one.rates.used([rule.id], [1000, 1001, 1002]) == {(rule.id, 1000): 3, (rule.id, 1001): 1}


async def test_tokens_are_added_whatever_the_total(pair: list[Database]):
    one, two = pair
    rule = await one.rates.set_rule("local", None, "tokens", "day", 100, actor="ann")
    await one.rates.add(rule, 7, 80)
    await two.rates.add(rule, 7, 80)
    assert await one.rates.used([rule.id], [7, 8]) == {(rule.id, 7): 160}
    assert await one.rates.used([], [7]) == {}


async def test_what_a_provider_states_is_seen_by_every_process(pair: list[Database]):
    one, two = pair
    resets = datetime(2026, 11, 30, 12, 6, 30, 250_000, tzinfo=UTC)
    first = StatedLimits(
        "openai", (StatedWindow("requests", 10, 4, resets), StatedWindow("tokens", 1000, 900, None))
    )
    await one.rates.record_stated("local", "org/alpha-7b", first)
    later = StatedLimits("openai", (StatedWindow("requests", 10, 0, resets, quota="per-minute"),))
    await two.rates.record_stated("local", "org/alpha-7b", later)
    rows = {row.measure: row for row in await two.rates.stated()}
    assert (rows["requests"].remaining, rows["requests"].resets_at, rows["requests"].quota) == (
        0,
        resets,
        "per-minute",
    )
    assert (rows["tokens"].most, rows["tokens"].remaining, rows["tokens"].style) == (1000, 900, "openai")
    assert rows["requests"].updated_at.tzinfo is not None


async def test_a_bare_wait_is_kept_as_a_used_up_requests_window(pair: list[Database]):
    one, two = pair
    until = datetime(2026, 11, 30, 12, 0, 40, tzinfo=UTC)
    await one.rates.record_stated("local", "org/beta-7b", StatedLimits("gemini", (), until))
    await one.rates.record_stated("local", "org/gamma-7b", StatedLimits("openai"))  # says nothing: no row
    (row,) = await two.rates.stated()
    assert (row.served_id, row.measure, row.remaining, row.retry_at, row.resets_at) == (
        "org/beta-7b", "requests", 0, until, until,
    )  # fmt: skip


async def test_a_periods_count_is_forgotten_soon_after_the_period_ends(redis_pair: list[Database]):
    one, _ = redis_pair
    rule = await one.rates.set_rule("local", None, "requests", "minute", 3, actor="ann")
    now = datetime.now(UTC)
    period = period_of("minute", now)
    assert await one.rates.take(rule, period, 1)
    assert one.shared.redis is not None
    kept_ms = await one.shared.redis.client.pttl(one.shared.redis.key("rate", rule.id, period))
    left = timedelta(seconds=seconds_until(period_end("minute", period), now))
    assert left <= timedelta(milliseconds=kept_ms) <= left + KEPT_AFTER_PERIOD


async def test_benches_with_their_own_prefix_share_one_redis_without_sharing_counts(
    bench: Database, settings: Settings, redis_url: str
):
    rule = await bench.rates.set_rule("local", None, "requests", "minute", 2, actor="ann")
    one = await Database.open(on_redis(settings, redis_url))
    other = await Database.open(on_redis(settings, redis_url))
    try:
        assert [await one.rates.take(rule, 1000, 1) for _ in range(3)] == [True, True, False]
        assert [await other.rates.take(rule, 1000, 1) for _ in range(3)] == [True, True, False]
    finally:
        await one.close()
        await other.close()
