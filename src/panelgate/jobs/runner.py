"""The scheduler: a small loop in every gateway process; the lease holder runs the due jobs.

Why a loop of our own rather than APScheduler: everything that makes the
scheduler correct lives in the database (the lease, a row per due time,
the mode and switches, catch-up decided from what was claimed), so an
in-process job store would hold nothing we could trust across processes,
and its misfire and coalescing rules would sit beside ours. What is left
is a tick every `tick_s` seconds over four due-time rules, and a clock
passed in (`now`), so due times are tested by moving that clock, not by
waiting.

Each tick: read the mode and switches (changes apply without a restart);
if the mode is `off`, let go of the lease; otherwise take or renew it, and
for each switched-on job take its newest due time. That due time runs
(once: its row is claimed) if it is after the later of "mode or job
switched on" and "7 days ago": a run missed while the server was down is
caught up once, never more, and turning the scheduler on does not fire
what fell due before. In `log-only` the claim records `would run` and
nothing is sent. A job runs in a task of its own, never alongside itself,
for at most `run_limit`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import socket
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from panelgate.jobs.job import Job, JobContext
from panelgate.store import Database
from panelgate.store.errors import Conflict, NotFound
from panelgate.store.scheduler_book import Lease, RunRecord, SchedulerState

log = logging.getLogger(__name__)

CATCH_UP = timedelta(days=7)
RUN_LIMIT = timedelta(hours=2)
TICK_S = 30.0
LEASE_S = 90.0


def utcnow() -> datetime:
    return datetime.now(UTC)


def process_holder() -> str:
    """A name for this process's runner: host, pid and a few random characters (two apps in one process
    are two runners)."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(3)}"


@dataclass(frozen=True)
class JobView:
    job: Job
    enabled: bool
    next_due: datetime | None
    last_run: RunRecord | None


@dataclass(frozen=True)
class SchedulerView:
    state: SchedulerState
    lease: Lease | None
    holder: str
    jobs: list[JobView]


class Scheduler:
    def __init__(
        self,
        db: Database,
        jobs: Sequence[Job],
        context: JobContext,
        *,
        now: Callable[[], datetime] = utcnow,
        holder: str | None = None,
        tick_s: float = TICK_S,
        lease_s: float = LEASE_S,
        run_limit: timedelta = RUN_LIMIT,
    ) -> None:
        self._db = db
        self._jobs = {job.name: job for job in jobs}
        self._context = context
        self._now = now
        self.holder = holder or process_holder()
        self._tick_s = tick_s
        self._lease_s = lease_s
        self._run_limit = run_limit
        self._running: dict[str, asyncio.Task[None]] = {}
        self._held = False

    @property
    def jobs(self) -> list[Job]:
        return list(self._jobs.values())

    # ---- the loop ------------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Tick in the background while the block runs; then stop every job and let the lease go."""
        loop = asyncio.create_task(self._loop(), name=f"scheduler {self.holder}")
        try:
            yield
        finally:
            loop.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await loop
            await self._stop_jobs()
            if self._held:
                with contextlib.suppress(Exception):
                    await self._db.scheduler.release_lease(self.holder, self._now())

    async def apply_now(self) -> None:
        """Tick at once, after a change of mode or switches through this process (other processes see
        it on their next tick); a failure is left to the next tick."""
        await self._tick_safely()

    async def _loop(self) -> None:
        while True:
            await self._tick_safely()
            await asyncio.sleep(self._tick_s)

    async def _tick_safely(self) -> None:
        try:
            await self.tick()
        except Exception:  # the next tick tries again
            log.warning("the scheduler's tick failed", exc_info=True)

    async def tick(self) -> list[str]:
        """Run (or in `log-only`, record) every job that is due; the names of those claimed."""
        now = self._now()
        state = await self._db.scheduler.state()
        if state.mode == "off":
            if self._held:
                await self._db.scheduler.release_lease(self.holder, now)
                self._held = False
            return []
        self._held = await self._db.scheduler.take_lease(self.holder, now, self._lease_s)
        if not self._held:
            return []
        claimed = []
        for job in self._jobs.values():
            due = self._due(job, state, now)
            if due is None or self._busy(job.name):
                continue
            finished = ("would run", "log-only: nothing was sent") if state.mode == "log-only" else None
            run = await self._db.scheduler.claim(
                job.name,
                due,
                holder=self.holder,
                mode=state.mode,
                now=now,
                stale_after=self._run_limit,
                finished=finished,
            )
            if run is None:
                continue
            claimed.append(job.name)
            if finished is None:
                self._start(job, run)
        return claimed

    def _due(self, job: Job, state: SchedulerState, now: datetime) -> datetime | None:
        """The due time to run now, if any: the newest one, when it is after the job was turned on."""
        switch = state.switch(job.name)
        if not switch.enabled:
            return None
        due = job.schedule.latest(now)
        floors = [now - CATCH_UP, *(t for t in (state.mode_since, switch.since) if t is not None)]
        return due if due >= max(floors) else None

    def _busy(self, name: str) -> bool:
        task = self._running.get(name)
        return task is not None and not task.done()

    async def idle(self) -> None:
        """Wait for every job this process is running to end."""
        await asyncio.gather(*self._running.values(), return_exceptions=True)

    # ---- running a job ---------------------------------------------------------------

    def _start(self, job: Job, run: RunRecord) -> asyncio.Task[None]:
        task = asyncio.create_task(self._run(job, run.due_at), name=f"job {job.name}")
        self._running[job.name] = task
        return task

    async def _run(self, job: Job, due_at: datetime) -> None:
        try:
            async with asyncio.timeout(self._run_limit.total_seconds()):
                detail = await job.run(self._context)
            outcome = "ok"
        except TimeoutError:
            outcome, detail = "timed out", f"stopped after {self._run_limit}"
        except asyncio.CancelledError:
            with contextlib.suppress(Exception):
                await self._db.scheduler.finish(
                    job.name, due_at, "stopped", "the server shut down while it ran", self._now()
                )
            raise
        except Exception as exc:
            log.exception("scheduled job %s failed", job.name)
            outcome, detail = "failed", f"{type(exc).__name__}: {exc}"
        await self._db.scheduler.finish(job.name, due_at, outcome, detail, self._now())

    async def run_now(self, name: str, actor: str) -> RunRecord:
        """Run a job because a person asked (in any mode), and return its finished run."""
        job = self._jobs.get(name)
        if job is None:
            raise NotFound(f"there is no job `{name}`; jobs: {', '.join(self._jobs)}", field="name")
        if self._busy(name):
            raise Conflict(f"`{name}` is running already; wait for it to end", field="name")
        now = self._now()
        state = await self._db.scheduler.state()
        run = await self._db.scheduler.claim(
            name,
            now,
            holder=self.holder,
            mode=state.mode,
            now=now,
            stale_after=self._run_limit,
            asked_by=actor,
        )
        if run is None:  # a person's claim refuses (Conflict) rather than returning nothing
            raise Conflict(f"`{name}` could not be started; try again", field="name")
        await asyncio.shield(self._start(job, run))
        found = await self._db.scheduler.run(name, run.due_at)
        return found or run

    async def _stop_jobs(self) -> None:
        for task in self._running.values():
            task.cancel()
        await asyncio.gather(*self._running.values(), return_exceptions=True)

    # ---- what the admin API shows ------------------------------------------------------

    async def view(self) -> SchedulerView:
        now = self._now()
        state = await self._db.scheduler.state()
        last = await self._db.scheduler.last_runs(self._jobs)
        shown = []
        for job in self._jobs.values():
            shown.append(
                JobView(
                    job,
                    state.switch(job.name).enabled,
                    await self._next_due(job, state, now),
                    last.get(job.name),
                )
            )
        return SchedulerView(state, await self._db.scheduler.lease(), self.holder, shown)

    async def _next_due(self, job: Job, state: SchedulerState, now: datetime) -> datetime | None:
        if state.mode == "off" or not state.switch(job.name).enabled:
            return None
        due = self._due(job, state, now)
        if due is not None and not await self._db.scheduler.claimed(job.name, due):
            return due
        return job.schedule.next(now)
