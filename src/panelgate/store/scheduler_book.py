"""The scheduler's shared state: its mode and job switches, the runner's lease, and every run.

Three promises, kept by the database rather than by any one process:

- **One runner.** `take_lease` writes the lease row only when it is free,
  expired, or already this holder's (one upsert with a condition), so of
  any number of gateway processes exactly one holds it at a time; when its
  holder stops renewing, another takes over once it expires.
- **Each due time runs once.** A run is claimed by inserting its (job, due
  time) row; a second process's insert finds the row and claims nothing.
- **A job never overlaps itself.** A claim is refused while the job has a
  run that has not finished (one that outlived `stale_after` is marked
  abandoned: its process died).

Times are passed in (`now`), so due times can be tested without waiting.
"""

from __future__ import annotations

import zlib
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Literal, cast

from sqlalchemy import Row, case, or_, select, text, update
from sqlalchemy.ext.asyncio import AsyncConnection

from panelgate.store.audit import write_audit
from panelgate.store.connections import Connections
from panelgate.store.errors import Conflict, Invalid
from panelgate.store.tables import scheduler_lease, scheduler_runs, scheduler_settings
from panelgate.store.upsert import insert_for

Mode = Literal["off", "log-only", "run"]
MODES: tuple[Mode, ...] = ("off", "log-only", "run")
LEASE_ROW = 1
MAX_DETAIL = 2000


@dataclass(frozen=True)
class JobSwitch:
    enabled: bool = True
    since: datetime | None = None
    """When it was last switched (None: never; it is on by default)."""


@dataclass(frozen=True)
class SchedulerState:
    mode: Mode = "off"
    mode_since: datetime | None = None
    switches: dict[str, JobSwitch] = field(default_factory=dict)

    def switch(self, job: str) -> JobSwitch:
        return self.switches.get(job, JobSwitch())


@dataclass(frozen=True)
class Lease:
    holder: str
    taken_at: datetime
    renewed_at: datetime
    expires_at: datetime


@dataclass(frozen=True)
class RunRecord:
    job: str
    due_at: datetime
    holder: str
    mode: str
    asked_by: str | None
    started_at: datetime
    finished_at: datetime | None
    outcome: str
    """running, ok, failed, timed out, stopped, abandoned, or `would run` (log-only)."""
    detail: str


class SchedulerBook:
    def __init__(self, connections: Connections) -> None:
        self._connections = connections

    # ---- mode and switches ---------------------------------------------------------

    async def state(self) -> SchedulerState:
        async with self._connections.read() as connection:
            return await _read_state(connection)

    async def change(
        self,
        *,
        mode: object = None,
        jobs: Mapping[str, object] | None = None,
        known_jobs: Collection[str],
        actor: str,
        now: datetime,
    ) -> SchedulerState:
        """Set the mode and switch jobs on or off (what is left out stays); audited."""
        wanted = _checked(mode, jobs, known_jobs)
        async with self._connections.write(edits_config=False) as connection:
            current = await _read_state(connection)
            before: dict[str, Any] = {"mode": current.mode}
            before |= {key: current.switch(key[4:]).enabled for key in wanted if key != "mode"}
            changed = {key: value for key, value in wanted.items() if before.get(key) != value}
            for key, value in changed.items():
                await _upsert(connection, key, value, now)
            if changed:
                await write_audit(
                    connection,
                    actor=actor,
                    entity="scheduler",
                    key="settings",
                    action="update",
                    before={key: before[key] for key in changed},
                    after=changed,
                )
            return await _read_state(connection)

    # ---- the lease -------------------------------------------------------------------

    async def take_lease(self, holder: str, now: datetime, seconds: float) -> bool:
        """Take or renew the runner's lease for `seconds`; False while another holder's is current."""
        lease = scheduler_lease.c
        async with self._connections.write(edits_config=False) as connection:
            insert = insert_for(connection)(scheduler_lease).values(
                id=LEASE_ROW,
                holder=holder,
                taken_at=now,
                renewed_at=now,
                expires_at=now + timedelta(seconds=seconds),
            )
            statement = insert.on_conflict_do_update(
                index_elements=[lease.id],
                set_={
                    "holder": insert.excluded.holder,
                    "taken_at": case(
                        (lease.holder == holder, lease.taken_at), else_=insert.excluded.taken_at
                    ),
                    "renewed_at": insert.excluded.renewed_at,
                    "expires_at": insert.excluded.expires_at,
                },
                where=or_(lease.holder == holder, lease.expires_at <= now),
            ).returning(lease.holder)
            taken = (await connection.execute(statement)).first()
        return taken is not None

    async def release_lease(self, holder: str, now: datetime) -> None:
        """Let the lease lapse now, so another process takes over at once (a clean shutdown)."""
        async with self._connections.write(edits_config=False) as connection:
            await connection.execute(
                update(scheduler_lease)
                .where(scheduler_lease.c.id == LEASE_ROW, scheduler_lease.c.holder == holder)
                .values(expires_at=now)
            )

    async def lease(self) -> Lease | None:
        async with self._connections.read() as connection:
            row = (await connection.execute(select(scheduler_lease))).first()
        if row is None:
            return None
        return Lease(row.holder, row.taken_at, row.renewed_at, row.expires_at)

    # ---- runs ----------------------------------------------------------------------

    async def claim(
        self,
        job: str,
        due_at: datetime,
        *,
        holder: str,
        mode: str,
        now: datetime,
        stale_after: timedelta,
        asked_by: str | None = None,
        finished: tuple[str, str] | None = None,
    ) -> RunRecord | None:
        """Claim `job`'s run for `due_at`: its row, or None when it is not this holder's to run.

        A scheduled run (`asked_by` None) needs the lease and is simply not
        claimed while the job is running or when the due time was claimed
        already; a run a person asked for needs no lease and is refused
        (`Conflict`) while the job runs. `finished` (outcome, detail) records
        a run that is over as it is claimed (log-only's `would run`).
        """
        runs = scheduler_runs.c
        async with self._connections.write(edits_config=False) as connection:
            if connection.dialect.name == "postgresql":  # claims of one job take turns
                await connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _lock_key(job)})
            if asked_by is None and not await _renew(connection, holder, now):
                return None
            await connection.execute(
                update(scheduler_runs)
                .where(runs.job == job, runs.finished_at.is_(None), runs.started_at < now - stale_after)
                .values(finished_at=now, outcome="abandoned", detail="its process stopped before it ended")
            )
            running = (
                await connection.execute(
                    select(scheduler_runs).where(runs.job == job, runs.finished_at.is_(None)).limit(1)
                )
            ).first()
            if running is not None:
                if asked_by is None:
                    return None
                raise Conflict(
                    f"`{job}` is running already (since {running.started_at:%Y-%m-%d %H:%M:%S} UTC); "
                    "wait for it to end",
                    field="name",
                )
            outcome, detail = finished or ("running", "")
            values = {
                "job": job,
                "due_at": due_at,
                "holder": holder,
                "mode": mode,
                "asked_by": asked_by,
                "started_at": now,
                "finished_at": now if finished else None,
                "outcome": outcome,
                "detail": detail[:MAX_DETAIL],
            }
            statement = (
                insert_for(connection)(scheduler_runs)
                .values(**values)
                .on_conflict_do_nothing(index_elements=[runs.job, runs.due_at])
                .returning(runs.job)
            )
            if (await connection.execute(statement)).first() is None:
                if asked_by is None:
                    return None
                raise Conflict(f"`{job}` was asked to run at this moment already", field="name")
        return RunRecord(**cast(dict[str, Any], values))

    async def finish(self, job: str, due_at: datetime, outcome: str, detail: str, now: datetime) -> None:
        runs = scheduler_runs.c
        async with self._connections.write(edits_config=False) as connection:
            await connection.execute(
                update(scheduler_runs)
                .where(runs.job == job, runs.due_at == due_at, runs.finished_at.is_(None))
                .values(finished_at=now, outcome=outcome, detail=detail[:MAX_DETAIL])
            )

    async def runs(self, limit: int = 50, job: str | None = None) -> list[RunRecord]:
        """The newest runs first (of one job, or of all)."""
        query = select(scheduler_runs).order_by(
            scheduler_runs.c.started_at.desc(), scheduler_runs.c.due_at.desc()
        )
        if job is not None:
            query = query.where(scheduler_runs.c.job == job)
        async with self._connections.read() as connection:
            rows = (await connection.execute(query.limit(max(1, limit)))).all()
        return [_run(row) for row in rows]

    async def last_runs(self, jobs: Collection[str]) -> dict[str, RunRecord]:
        """Each job's newest run, for the jobs that have one."""
        found: dict[str, RunRecord] = {}
        for job in jobs:
            if newest := await self.runs(1, job):
                found[job] = newest[0]
        return found

    async def run(self, job: str, due_at: datetime) -> RunRecord | None:
        """The run of `job` for `due_at`, if it was claimed."""
        query = select(scheduler_runs).where(scheduler_runs.c.job == job, scheduler_runs.c.due_at == due_at)
        async with self._connections.read() as connection:
            row = (await connection.execute(query)).first()
        return None if row is None else _run(row)

    async def claimed(self, job: str, due_at: datetime) -> bool:
        return await self.run(job, due_at) is not None


# ---- helpers ---------------------------------------------------------------------------


def _checked(mode: object, jobs: Mapping[str, object] | None, known_jobs: Collection[str]) -> dict[str, Any]:
    wanted: dict[str, Any] = {}
    if mode is not None:
        if mode not in MODES:
            raise Invalid(f"`mode` must be one of {', '.join(MODES)}", field="mode")
        wanted["mode"] = mode
    for name, enabled in (jobs or {}).items():
        if name not in known_jobs:
            raise Invalid(f"there is no job `{name}`; jobs: {', '.join(sorted(known_jobs))}", field="jobs")
        if not isinstance(enabled, bool):
            raise Invalid(f"`jobs.{name}` must be true or false", field="jobs")
        wanted[f"job:{name}"] = enabled
    return wanted


async def _read_state(connection: AsyncConnection) -> SchedulerState:
    rows = (await connection.execute(select(scheduler_settings))).all()
    mode: Mode = "off"
    mode_since = None
    switches: dict[str, JobSwitch] = {}
    for row in rows:
        if row.key == "mode" and row.value in MODES:
            mode, mode_since = row.value, row.changed_at
        elif row.key.startswith("job:"):
            switches[row.key[4:]] = JobSwitch(bool(row.value), row.changed_at)
    return SchedulerState(mode, mode_since, switches)


async def _upsert(connection: AsyncConnection, key: str, value: Any, now: datetime) -> None:
    statement = insert_for(connection)(scheduler_settings).values(key=key, value=value, changed_at=now)
    await connection.execute(
        statement.on_conflict_do_update(
            index_elements=[scheduler_settings.c.key], set_={"value": value, "changed_at": now}
        )
    )


async def _renew(connection: AsyncConnection, holder: str, now: datetime) -> bool:
    lease = scheduler_lease.c
    renewed = await connection.execute(
        update(scheduler_lease)
        .where(lease.id == LEASE_ROW, lease.holder == holder, lease.expires_at > now)
        .values(renewed_at=now)
    )
    return renewed.rowcount == 1


def _lock_key(job: str) -> int:
    return 0x5C4E0000 + zlib.crc32(job.encode())


def _run(row: Row[Any]) -> RunRecord:
    fields = row._mapping
    return RunRecord(**{name: fields[name] for name in RunRecord.__dataclass_fields__})
