"""Which member a route conversation sticks to, found by every process, the same on the database and on
Redis; the database keeps the record of every conversation and turn either way."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import timedelta

import pytest

from panelgate.settings import Settings
from panelgate.store import Database
from panelgate.store.records import ConversationRecord, TurnRecord
from panelgate.store.shared.redis_routes import FORGOTTEN_AFTER
from tests.store.conftest import T0, later
from tests.support.shared_state import BACKENDS, processes

KEY = "c0ffee"


@pytest.fixture(params=BACKENDS)
async def pair(
    request: pytest.FixtureRequest, bench: Database, settings: Settings, redis_url: str
) -> AsyncIterator[list[Database]]:
    async with processes(request.param, settings, redis_url) as both:
        yield both


@pytest.fixture
async def redis_one(bench: Database, settings: Settings, redis_url: str) -> AsyncIterator[Database]:
    async with processes("redis", settings, redis_url, count=1) as (one,):
        yield one


def conversation(
    alias: str, turns: int, minutes: int, answered_by: tuple[str, ...] = ()
) -> ConversationRecord:
    return ConversationRecord(
        key=KEY,
        id="r20250301-120000-0a0b0c0d",
        collection="agents",
        caller="-",
        alias=alias,
        answered_by=answered_by or (alias,),
        turns=turns,
        started_at=T0,
        last_at=later(minutes),
    )


def turn(number: int, alias: str, minutes: int) -> TurnRecord:
    return TurnRecord(
        call=f"r20250301-120000-0a0b0c0d.turn{number}-abc",
        conversation="r20250301-120000-0a0b0c0d",
        turn=number,
        at=later(minutes),
        collection="agents",
        caller="-",
        alias=alias,
        status="ok" if alias else "error",
        seconds=1.0,
    )


async def test_a_conversation_one_process_recorded_is_live_on_the_other_until_idle(pair: list[Database]):
    one, two = pair
    await one.routes.record_turn(turn(1, "alpha", 0), conversation("alpha", 1, 0), model_id=None)
    found = await two.routes.conversation(KEY, live_since=later(-60))
    assert found == conversation("alpha", 1, 0)
    assert await two.routes.conversation(KEY, live_since=later(1)) is None
    assert await two.routes.conversation("another", live_since=later(-60)) is None


async def test_the_next_turn_moves_the_conversation_on_and_the_database_keeps_the_record(
    pair: list[Database],
):
    one, two = pair
    await one.routes.record_turn(turn(1, "alpha", 0), conversation("alpha", 1, 0), model_id=None)
    moved = conversation("beta", 2, 5, answered_by=("alpha", "beta"))
    await two.routes.record_turn(turn(2, "beta", 5), moved, model_id=None)
    assert await one.routes.conversation(KEY, live_since=later(-55)) == moved
    assert await one.routes.by_id(moved.id) == moved
    assert [(t.turn, t.alias) for t in await one.routes.turns(moved.id)] == [(1, "alpha"), (2, "beta")]


async def test_a_turn_nobody_answered_leaves_the_conversation_as_it_was(pair: list[Database]):
    one, two = pair
    await one.routes.record_turn(turn(1, "alpha", 0), conversation("alpha", 1, 0), model_id=None)
    await two.routes.record_turn(turn(2, "", 5), None, model_id=None)
    assert await one.routes.conversation(KEY, live_since=later(-60)) == conversation("alpha", 1, 0)


async def test_an_earlier_turn_kept_late_does_not_undo_a_later_one(redis_one: Database):
    newer = conversation("beta", 3, 9, answered_by=("alpha", "beta"))
    await redis_one.shared.sticky.keep(newer)
    await redis_one.shared.sticky.keep(conversation("alpha", 2, 4))
    assert await redis_one.routes.conversation(KEY, live_since=later(-60)) == newer


async def test_redis_forgets_a_conversation_a_day_after_its_last_turn(redis_one: Database):
    await redis_one.shared.sticky.keep(conversation("alpha", 1, 0))
    assert redis_one.shared.redis is not None
    left_ms = await redis_one.shared.redis.client.pttl(redis_one.shared.redis.key("route", KEY))
    assert FORGOTTEN_AFTER - timedelta(minutes=1) < timedelta(milliseconds=left_ms) <= FORGOTTEN_AFTER


def claim_of(conversation_id: str, alias: str, minutes: int) -> ConversationRecord:
    start = later(minutes)
    return ConversationRecord(
        key=KEY,
        id=conversation_id,
        collection="agents",
        caller="-",
        alias=alias,
        answered_by=(),
        turns=0,
        started_at=start,
        last_at=start,
    )


async def test_two_first_turns_of_one_key_on_two_processes_join_one_conversation(pair: list[Database]):
    one, two = pair
    first, second = claim_of("r-first", "alpha", 0), claim_of("r-second", "beta", 0)
    results = await asyncio.gather(
        one.routes.claim(first, live_since=later(-60)), two.routes.claim(second, live_since=later(-60))
    )
    assert results[0] == results[1] and results[0].id in ("r-first", "r-second")
    assert await two.routes.conversation(KEY, live_since=later(-60)) == results[0]
    assert await one.routes.claim(claim_of("r-third", "gamma", 1), live_since=later(-59)) == results[0]


async def test_a_claim_takes_the_key_of_a_conversation_gone_idle(pair: list[Database]):
    one, two = pair
    await one.routes.record_turn(turn(1, "alpha", 0), conversation("alpha", 1, 0), model_id=None)
    fresh = claim_of("r-fresh", "beta", 90)
    assert await two.routes.claim(fresh, live_since=later(30)) == fresh
    assert await one.routes.conversation(KEY, live_since=later(30)) == fresh
    assert await one.routes.claim(claim_of("r-late", "alpha", 91), live_since=later(31)) == fresh
