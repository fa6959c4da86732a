"""The scheduler: modes, one run per due time, one runner between processes, catch-up, no overlap.

Against a real store and the loopback upstream; the clock is moved, never waited for.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, time, timedelta
from pathlib import Path

from panelgate.jobs.job import Job, JobContext
from panelgate.jobs.registry import JOBS
from panelgate.jobs.schedule import Daily
from panelgate.settings import Settings
from panelgate.store import Database
from tests.engine.conftest import Live, open_live

from .conftest import MakeScheduler

NAMES = [job.name for job in JOBS]


def monday(live: Live, hour: int, minute: int = 0, *, days: int = 0) -> datetime:
    """A Monday (after the bench was made) at `hour`:`minute` UTC, plus `days`; the clock is set to it."""
    today = datetime.now(UTC).date()
    first = today + timedelta(days=2 + (7 - (today.weekday() + 2) % 7) % 7)
    live.clock.now = datetime.combine(first, time(hour, minute), UTC) + timedelta(days=days)
    return live.clock.now


async def set_mode(live: Live, mode: str, *, only: str | None = None) -> None:
    jobs = None if only is None else {name: name == only for name in NAMES}
    await live.db.scheduler.change(mode=mode, jobs=jobs, known_jobs=NAMES, actor="t", now=live.clock())


def probes_sent(live: Live) -> int:
    return len(live.upstream.requests)


async def test_a_fresh_install_runs_nothing_and_sends_nothing(
    live: Live, make_scheduler: MakeScheduler
) -> None:
    scheduler = make_scheduler()
    monday(live, 9)
    assert await scheduler.tick() == []
    assert probes_sent(live) == 0
    assert await live.db.scheduler.lease() is None
    assert await live.db.scheduler.runs() == []


async def test_log_only_records_what_would_run_and_sends_nothing(
    live: Live, make_scheduler: MakeScheduler
) -> None:
    scheduler = make_scheduler()
    monday(live, 4)
    await set_mode(live, "log-only")
    monday(live, 9)
    assert sorted(await scheduler.tick()) == ["auto-retire", "catalog-refresh", "daily-probe", "speed-test"]
    await scheduler.idle()
    assert probes_sent(live) == 0
    runs = await live.db.scheduler.runs()
    assert {(run.job, run.outcome, run.mode) for run in runs} == {
        ("daily-probe", "would run", "log-only"),
        ("speed-test", "would run", "log-only"),
        ("auto-retire", "would run", "log-only"),
        ("catalog-refresh", "would run", "log-only"),
    }
    assert await scheduler.tick() == [], "each due time is recorded once"


async def test_run_runs_each_job_once_per_due_time(live: Live, make_scheduler: MakeScheduler) -> None:
    scheduler = make_scheduler()
    monday(live, 4)
    await set_mode(live, "run", only="daily-probe")
    monday(live, 5, 0)
    assert await scheduler.tick() == ["daily-probe"]
    await scheduler.idle()
    assert sorted(r.model for r in live.upstream.requests) == ["m1", "m2", "m3"]
    monday(live, 5, 30)
    assert await scheduler.tick() == []
    await scheduler.idle()
    assert probes_sent(live) == 3
    monday(live, 5, 1, days=1)
    assert await scheduler.tick() == ["daily-probe"]
    await scheduler.idle()
    assert probes_sent(live) == 6
    runs = await live.db.scheduler.runs(job="daily-probe")
    assert [(run.due_at, run.outcome) for run in runs] == [
        (monday(live, 5, days=1), "ok"),
        (monday(live, 5), "ok"),
    ]
    assert runs[0].detail == "probed: 3 model(s); 3 answered, 0 failed, 0 not sent (rate limits)"
    ledger = await live.db.usage.recent()
    assert {(row.purpose, row.caller) for row in ledger} == {("probe", "scheduler")}


async def test_two_processes_run_each_due_time_once_between_them(
    live: Live, make_scheduler: MakeScheduler, settings: Settings, tmp_path: Path
) -> None:
    other_db = await Database.open(settings)  # a second gateway process: its own engine on the same data
    other = await open_live(other_db, live.upstream, tmp_path / "other", live.clock)
    try:
        schedulers = {"a": make_scheduler("a"), "b": make_scheduler("b", live_=other)}
        monday(live, 4)
        await set_mode(live, "run", only="daily-probe")
        monday(live, 5, 1)
        for _ in range(3):
            await asyncio.gather(*(scheduler.tick() for scheduler in schedulers.values()))
            await asyncio.gather(*(scheduler.idle() for scheduler in schedulers.values()))
        assert sorted(r.model for r in live.upstream.requests) == ["m1", "m2", "m3"], "once, by one of them"
        (run,) = await live.db.scheduler.runs()
        lease = await live.db.scheduler.lease()
        assert lease is not None and lease.holder == run.holder
        (standby,) = set(schedulers) - {run.holder}

        monday(live, 5, 1, days=1)  # the runner stopped ticking a day ago: its lease lapsed
        assert await schedulers[standby].tick() == ["daily-probe"]
        await schedulers[standby].idle()
        assert await schedulers[run.holder].tick() == []
        assert probes_sent(live) == 6
        lease = await live.db.scheduler.lease()
        assert lease is not None and lease.holder == standby
    finally:
        await other.client.aclose()
        await other_db.close()


async def test_a_missed_run_is_caught_up_once(live: Live, make_scheduler: MakeScheduler) -> None:
    scheduler = make_scheduler()
    monday(live, 4)
    await set_mode(live, "run", only="daily-probe")
    assert await scheduler.tick() == []
    monday(live, 12, days=3)  # the server was down Monday to Thursday noon: four due times missed
    assert await scheduler.tick() == ["daily-probe"]
    await scheduler.idle()
    monday(live, 12, 30, days=3)
    assert await scheduler.tick() == []
    await scheduler.idle()
    assert probes_sent(live) == 3
    (run,) = await live.db.scheduler.runs()
    assert run.due_at == monday(live, 5, days=3)


async def test_turning_the_scheduler_on_does_not_fire_what_fell_due_before(
    live: Live, make_scheduler: MakeScheduler
) -> None:
    scheduler = make_scheduler()
    monday(live, 6)
    await set_mode(live, "run", only="daily-probe")
    assert await scheduler.tick() == []
    view = await scheduler.view()
    (daily,) = [job for job in view.jobs if job.job.name == "daily-probe"]
    assert daily.next_due == monday(live, 5, days=1)
    assert probes_sent(live) == 0


async def test_a_job_switched_off_does_not_run(live: Live, make_scheduler: MakeScheduler) -> None:
    scheduler = make_scheduler()
    monday(live, 4)
    await set_mode(live, "run", only="auto-retire")
    monday(live, 9)
    assert await scheduler.tick() == ["auto-retire"]
    await scheduler.idle()
    assert probes_sent(live) == 0


async def test_a_job_never_runs_beside_itself(live: Live, make_scheduler: MakeScheduler) -> None:
    release = asyncio.Event()

    async def slow(context: JobContext) -> str:
        await release.wait()
        return "done"

    scheduler = make_scheduler(jobs=(Job("slow", "waits", Daily(time(5, 0)), slow),))
    monday(live, 4)
    await live.db.scheduler.change(mode="run", known_jobs=["slow"], actor="t", now=live.clock())
    monday(live, 5)
    assert await scheduler.tick() == ["slow"]
    monday(live, 5, days=1)  # still running when its next due time comes
    assert await scheduler.tick() == []
    release.set()
    await scheduler.idle()
    assert await scheduler.tick() == ["slow"], "the due time it could not start is run once it ended"
    await scheduler.idle()
    assert [run.outcome for run in await live.db.scheduler.runs()] == ["ok", "ok"]


async def test_a_failing_job_is_recorded_with_its_error(live: Live, make_scheduler: MakeScheduler) -> None:
    async def broken(context: JobContext) -> str:
        raise RuntimeError("the catalog feed is down")

    scheduler = make_scheduler(jobs=(Job("broken", "fails", Daily(time(5, 0)), broken),))
    monday(live, 4)
    await live.db.scheduler.change(mode="run", known_jobs=["broken"], actor="t", now=live.clock())
    monday(live, 5)
    await scheduler.tick()
    await scheduler.idle()
    (run,) = await live.db.scheduler.runs()
    assert (run.outcome, run.detail) == ("failed", "RuntimeError: the catalog feed is down")


async def test_shutdown_stops_a_running_job_and_lets_the_lease_go(
    live: Live, make_scheduler: MakeScheduler
) -> None:
    started = asyncio.Event()

    async def endless(context: JobContext) -> str:
        started.set()
        await asyncio.Event().wait()
        return "never"

    scheduler = make_scheduler(jobs=(Job("endless", "runs on", Daily(time(5, 0)), endless),), tick_s=0.01)
    monday(live, 4)
    await live.db.scheduler.change(mode="run", known_jobs=["endless"], actor="t", now=live.clock())
    monday(live, 5)
    async with scheduler.running():
        await asyncio.wait_for(started.wait(), 10)
    (run,) = await live.db.scheduler.runs()
    assert run.outcome == "stopped"
    assert await live.db.scheduler.take_lease("next", live.clock(), 90), "free at once for another process"


async def test_a_person_may_run_a_job_in_any_mode(live: Live, make_scheduler: MakeScheduler) -> None:
    scheduler = make_scheduler()
    run = await scheduler.run_now("daily-probe", "ops")
    assert (run.outcome, run.asked_by, run.mode) == ("ok", "ops", "off")
    assert probes_sent(live) == 3
