"""The scheduler's shared state: one lease holder, each due time claimed once, no run beside itself."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from datetime import datetime, timedelta
from typing import Any

import pytest

from panelgate.settings import Settings
from panelgate.store import Conflict, Database, Invalid
from panelgate.store.scheduler_book import RunRecord

from .conftest import T0, later

JOBS = ("daily-probe", "auto-retire")
HOURS_2 = timedelta(hours=2)


async def test_a_fresh_database_is_off_with_every_job_on(db: Database) -> None:
    state = await db.scheduler.state()
    assert (state.mode, state.mode_since) == ("off", None)
    assert state.switch("daily-probe").enabled


async def test_changes_are_checked_and_audited(db: Database) -> None:
    state = await db.scheduler.change(
        mode="log-only", jobs={"auto-retire": False}, known_jobs=JOBS, actor="ops", now=T0
    )
    assert (state.mode, state.mode_since, state.switch("auto-retire").enabled) == ("log-only", T0, False)
    (change,) = await db.audit.list(entity="scheduler")
    assert (change.actor, change.before, change.after) == (
        "ops",
        {"mode": "off", "job:auto-retire": True},
        {"mode": "log-only", "job:auto-retire": False},
    )
    with pytest.raises(Invalid, match="`mode` must be one of off, log-only, run"):
        await db.scheduler.change(mode="often", known_jobs=JOBS, actor="ops", now=T0)
    with pytest.raises(Invalid, match="there is no job `nightly`"):
        await db.scheduler.change(jobs={"nightly": True}, known_jobs=JOBS, actor="ops", now=T0)


async def test_the_same_mode_again_changes_nothing(db: Database) -> None:
    await db.scheduler.change(mode="run", known_jobs=JOBS, actor="ops", now=T0)
    state = await db.scheduler.change(mode="run", known_jobs=JOBS, actor="ops", now=later(5))
    assert state.mode_since == T0
    assert len(await db.audit.list(entity="scheduler")) == 1


async def test_one_holder_at_a_time_until_its_lease_lapses(db: Database) -> None:
    assert await db.scheduler.take_lease("a", T0, 90)
    assert not await db.scheduler.take_lease("b", later(1), 90)
    assert await db.scheduler.take_lease("a", later(1), 90), "the holder renews"
    assert await db.scheduler.take_lease("b", later(3), 90), "taken over once a's lease expired"
    lease = await db.scheduler.lease()
    assert lease is not None and (lease.holder, lease.taken_at) == ("b", later(3))


async def test_a_released_lease_is_free_at_once(db: Database) -> None:
    await db.scheduler.take_lease("a", T0, 90)
    await db.scheduler.release_lease("a", later(1))
    assert await db.scheduler.take_lease("b", later(1), 90)


async def test_two_processes_racing_for_the_lease_get_one_holder(db: Database, settings: Settings) -> None:
    other = await Database.open(settings)
    try:
        taken = await asyncio.gather(
            *(database.scheduler.take_lease(name, T0, 90) for name, database in [("a", db), ("b", other)] * 3)
        )
    finally:
        await other.close()
    lease = await db.scheduler.lease()
    assert lease is not None
    assert taken == [name == lease.holder for name in "ab" * 3]


def claim(db: Database, due: datetime, holder: str = "a", **options: Any) -> Awaitable[RunRecord | None]:
    """Claim `daily-probe` (or `job=`) for `due`, at `due` (or `now=`), in mode `run` (or `mode=`)."""
    job = options.pop("job", "daily-probe")
    settings = {"mode": "run", "now": due, "stale_after": HOURS_2, **options}
    return db.scheduler.claim(job, due, holder=holder, **settings)


async def test_a_due_time_is_claimed_once(db: Database) -> None:
    await db.scheduler.take_lease("a", T0, 90)
    first = await claim(db, T0)
    assert first is not None and first.outcome == "running"
    await db.scheduler.finish("daily-probe", T0, "ok", "probed 3", later(1))
    assert await claim(db, T0, now=later(1)) is None
    (run,) = await db.scheduler.runs()
    assert (run.outcome, run.detail, run.finished_at) == ("ok", "probed 3", later(1))


async def test_a_claim_needs_the_lease(db: Database) -> None:
    await db.scheduler.take_lease("a", T0, 90)
    assert await claim(db, T0, holder="b") is None
    assert await db.scheduler.runs() == []


async def test_a_job_never_runs_beside_itself(db: Database) -> None:
    await db.scheduler.take_lease("a", T0, 90)
    await claim(db, T0)
    await db.scheduler.take_lease("a", later(30), 90)
    assert await claim(db, T0 + timedelta(days=1), now=later(30)) is None
    with pytest.raises(Conflict, match="`daily-probe` is running already"):
        await claim(db, later(30), asked_by="ops")


async def test_a_run_whose_process_died_is_marked_abandoned(db: Database) -> None:
    await db.scheduler.take_lease("a", T0, 90)
    await claim(db, T0)
    three_hours = T0 + timedelta(hours=3)
    await db.scheduler.take_lease("b", three_hours, 90)
    assert await claim(db, three_hours, holder="b") is not None
    old = await db.scheduler.run("daily-probe", T0)
    assert old is not None and old.outcome == "abandoned"


async def test_log_only_records_a_run_that_is_over_as_it_is_claimed(db: Database) -> None:
    await db.scheduler.take_lease("a", T0, 90)
    run = await claim(db, T0, job="auto-retire", mode="log-only", finished=("would run", "nothing sent"))
    assert run is not None and (run.outcome, run.finished_at) == ("would run", T0)
    assert (await db.scheduler.last_runs(JOBS))["auto-retire"].outcome == "would run"
