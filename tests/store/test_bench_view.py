"""The cached view of the bench: an edit here shows at once, another process's within its max age."""

from __future__ import annotations

import asyncio

from sqlalchemy import text

from panelgate.core.types import CollectionInfo
from panelgate.settings import Settings
from panelgate.store import Database
from tests.support.loop_turns import crowd, statements_run
from tests.support.shared_state import on_redis


async def test_an_edit_in_this_process_shows_at_once(bench: Database):
    assert "core" not in (await bench.bench.snapshot()).collections
    await bench.collections.save(CollectionInfo(name="core", members=("alpha",)), actor="t")
    assert (await bench.bench.snapshot()).collections["core"].members == ("alpha",)
    await bench.models.rename("alpha", "first", actor="t")
    snapshot = await bench.bench.snapshot()
    assert "first" in snapshot.roster and snapshot.collections["core"].members == ("first",)


async def test_a_panel_or_verdict_does_not_drop_the_copy(bench: Database, record_panel):
    before = await bench.bench.snapshot()
    calls = await record_panel("p20250301-120000-0001", [("alpha", "ok")])
    await bench.verdicts.record(calls[0], useful=True, actor="t")
    assert await bench.bench.snapshot() is before


async def test_a_crowd_arriving_after_an_edit_shares_one_read_and_goes_on_in_the_same_turn(bench: Database):
    await bench.bench.snapshot()
    await bench.collections.save(CollectionInfo(name="core", members=("alpha",)), actor="t")
    statements = statements_run(bench.engine)
    seen = await crowd(bench.bench.snapshot, 200)
    assert {id(snapshot) for _, snapshot in seen} == {id(seen[0][1])}
    assert seen[0][1].collections["core"].members == ("alpha",)
    assert sum("FROM collections" in statement for statement in statements) == 1, "one read for the crowd"
    finished = [turn for turn, _ in seen]
    assert max(finished) - min(finished) <= 1, "woken together, not one a turn"


async def test_another_process_edit_shows_soon_after_the_max_age_without_a_panel_waiting(
    bench: Database, settings: Settings
):
    other = await Database.open(settings)
    try:
        other.bench._max_age_s = 0.2
        before = await other.bench.snapshot()
        assert "core" not in before.collections
        await bench.collections.save(CollectionInfo(name="core", members=("alpha",)), actor="t")
        assert await other.bench.snapshot() is before
        await asyncio.sleep(0.3)
        assert await other.bench.snapshot() is before  # served at once; the re-read runs behind it
        for _ in range(100):
            if "core" in (await other.bench.snapshot()).collections:
                break
            await asyncio.sleep(0.05)
        assert (await other.bench.snapshot()).collections["core"].members == ("alpha",)
    finally:
        await other.close()


async def test_workers_of_one_server_see_each_others_edits_at_once(bench: Database, settings: Settings):
    """`serve --workers N`: the processes share a stamp in the data folder, so no edit waits a second."""
    workers = settings.model_copy(update={"workers": 2})
    first, second = await Database.open(workers), await Database.open(workers)
    try:
        first.bench._max_age_s = second.bench._max_age_s = 3600  # no background re-read can help
        before = await second.bench.snapshot()
        assert "core" not in before.collections
        await first.collections.save(CollectionInfo(name="core", members=("alpha",)), actor="t")
        assert (await second.bench.snapshot()).collections["core"].members == ("alpha",)
        again = await second.bench.snapshot()
        assert await second.bench.snapshot() is again  # read once per edit, not once per use
        await second.models.rename("alpha", "first", actor="t")
        assert (await first.bench.snapshot()).collections["core"].members == ("first",)
    finally:
        await first.close()
        await second.close()


async def test_the_copy_is_read_again_only_when_the_shared_config_version_moves(bench: Database):
    bench.bench._max_age_s = 0.05
    before = await bench.bench.snapshot()
    async with bench.engine.begin() as connection:  # a change that did not go through an edit
        await connection.execute(text("UPDATE models SET alias = 'renamed' WHERE alias = 'alpha'"))
    for _ in range(6):
        await asyncio.sleep(0.06)
        assert await bench.bench.snapshot() is before
    async with bench.engine.begin() as connection:
        await connection.execute(text("UPDATE config_version SET version = version + 1"))
    for _ in range(100):
        if "renamed" in (await bench.bench.snapshot()).roster:
            break
        await asyncio.sleep(0.05)
    assert "renamed" in (await bench.bench.snapshot()).roster


async def heard(database: Database, collection: str) -> bool:
    """Whether `database`'s bench shows `collection` within a tenth of a second: a notice crosses
    loopback in well under a millisecond, and the background re-read is held off for an hour."""
    for _ in range(20):
        if collection in (await database.bench.snapshot()).collections:
            return True
        await asyncio.sleep(0.005)
    return False


async def test_servers_sharing_a_redis_hear_each_others_edits_before_their_next_read(
    bench: Database, settings: Settings, redis_url: str
):
    """A cluster's replicas are separate servers: each edit is announced on the bench's Redis channel,
    so the next request on another replica reads the new bench instead of waiting out the max age."""
    replicas = on_redis(settings, redis_url)
    first, second = await Database.open(replicas), await Database.open(replicas)
    elsewhere = await Database.open(on_redis(settings, redis_url))  # another bench: another prefix
    try:
        for database in (first, second, elsewhere):
            database.bench._max_age_s = 3600
            assert "core" not in (await database.bench.snapshot()).collections
        await first.collections.save(CollectionInfo(name="core", members=("alpha",)), actor="t")
        assert await heard(second, "core")
        assert (await second.bench.snapshot()).collections["core"].members == ("alpha",)
        assert not await heard(elsewhere, "core")  # same database, but its Redis prefix is not ours
        copy = await first.bench.snapshot()
        await second.collections.save(CollectionInfo(name="wide", members=("alpha",)), actor="t")
        assert await heard(first, "wide") and await first.bench.snapshot() is not copy
        settled = await first.bench.snapshot()
        assert await first.bench.snapshot() is settled  # its own notice is not heard as another's
    finally:
        for database in (first, second, elsewhere):
            await database.close()
