"""The onboarding queue's shared state: its items, the dismissed candidates, and the worker's lease.

What keeps the queue right across restarts and several gateway processes
lives here, in the database:

- **Durable.** Each item is a row holding its state, the step it reached
  and what each finished step found, so a gateway that restarts reads
  where every item stood.
- **One worker.** `take_lease` writes the lease row only when it is free,
  expired, or already this holder's (the scheduler's upsert with a
  condition), and every write an item's worker makes first checks that it
  still holds the lease (`LeaseLost` otherwise), so a process that stalled
  past its lease cannot write over the one that took over.
- **Once in the queue.** A partial unique index keeps one unfinished item
  per (endpoint, served id).

Times are passed in (`now`), so leases are tested without waiting.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta
from typing import Any, Literal

from sqlalchemy import Row, case, delete, insert, or_, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from panelgate.store.audit import write_audit
from panelgate.store.connections import Connections
from panelgate.store.errors import Conflict
from panelgate.store.tables import onboarding_dismissed, onboarding_items, onboarding_lease
from panelgate.store.upsert import insert_for

ItemState = Literal["queued", "running", "stopping", "done", "unavailable", "failed", "stopped"]
StepName = Literal["register", "probe", "suite"]
StepState = Literal["pending", "running", "done", "failed", "skipped"]

WAITING: tuple[ItemState, ...] = ("queued", "running", "stopping")
FINISHED: tuple[ItemState, ...] = ("done", "unavailable", "failed", "stopped")
STEPS: tuple[StepName, ...] = ("register", "probe", "suite")
LEASE_ROW = 1
MAX_WHY = 2000


class LeaseLost(Exception):
    """This process no longer holds the queue's lease: another one works the queue now."""


@dataclass(frozen=True)
class NewItem:
    endpoint: str
    served_id: str
    alias: str


@dataclass(frozen=True)
class StepRecord:
    name: StepName
    state: StepState = "pending"
    detail: str = ""
    started_at: datetime | None = None
    finished_at: datetime | None = None


@dataclass(frozen=True)
class ProbeCall:
    """One probe call onboarding made, and what it found."""

    probe: str
    """ready, speed, tools or reasoning."""
    status: str
    """ok, empty, error, or refused (not sent: a rate limit would have refused it)."""
    seconds: float
    error_kind: str | None = None
    error: str = ""
    measures: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class OnboardingItem:
    id: int
    batch: str
    endpoint: str
    served_id: str
    alias: str
    suite: str
    probe_deadline_s: float
    state: ItemState
    step: StepName
    """The step it is at (or ended at)."""
    why: str
    model_id: int | None
    steps: tuple[StepRecord, ...]
    probes: tuple[ProbeCall, ...]
    starts: int
    """How many times a worker began it (more than one: it was resumed after a gateway stopped)."""
    asked_by: str
    queued_at: datetime
    started_at: datetime | None
    updated_at: datetime
    finished_at: datetime | None

    @property
    def finished(self) -> bool:
        return self.state in FINISHED

    def step_record(self, name: StepName) -> StepRecord:
        return next(step for step in self.steps if step.name == name)


@dataclass(frozen=True)
class Dismissal:
    endpoint: str
    served_id: str
    dismissed_at: datetime
    dismissed_by: str


@dataclass(frozen=True)
class Lease:
    holder: str
    taken_at: datetime
    renewed_at: datetime
    expires_at: datetime


class OnboardingBook:
    def __init__(self, connections: Connections) -> None:
        self._connections = connections

    # ---- the queue ---------------------------------------------------------------------

    async def enqueue(
        self,
        items: Sequence[NewItem],
        *,
        batch: str,
        suite: str,
        probe_deadline_s: float,
        asked_by: str,
        now: datetime,
    ) -> list[OnboardingItem]:
        """Add `items` to the end of the queue, all or none (one already waiting refuses the batch)."""
        rows = [
            {
                **asdict(item),
                "batch": batch,
                "suite": suite,
                "probe_deadline_s": probe_deadline_s,
                "state": "queued",
                "step": STEPS[0],
                "why": "",
                "model_id": None,
                "steps": [_step_json(StepRecord(name)) for name in STEPS],
                "probes": [],
                "starts": 0,
                "asked_by": asked_by,
                "queued_at": now,
                "started_at": None,
                "updated_at": now,
                "finished_at": None,
            }
            for item in items
        ]
        async with self._connections.write(edits_config=False) as connection:
            await _refuse_waiting(connection, items)
            ids = [
                (
                    await connection.execute(
                        insert(onboarding_items).values(**row).returning(onboarding_items.c.id)
                    )
                ).scalar_one()
                for row in rows
            ]
            return await _items(connection, onboarding_items.c.id.in_(ids))

    async def items(self, batch: str | None = None) -> list[OnboardingItem]:
        """Every item on record, in queue order (of one batch when given)."""
        async with self._connections.read() as connection:
            return await _items(connection, None if batch is None else onboarding_items.c.batch == batch)

    async def item(self, item_id: int) -> OnboardingItem | None:
        async with self._connections.read() as connection:
            found = await _items(connection, onboarding_items.c.id == item_id)
        return found[0] if found else None

    async def waiting(self) -> list[OnboardingItem]:
        """The items not finished yet, in queue order."""
        async with self._connections.read() as connection:
            return await _items(connection, onboarding_items.c.state.in_(WAITING))

    async def next_item(self) -> OnboardingItem | None:
        """The item to work next: one begun and not ended (it resumes first), else the oldest queued."""
        waiting = await self.waiting()
        begun = [item for item in waiting if item.state != "queued"]
        return next(iter(begun or waiting), None)

    async def begin(self, item_id: int, holder: str, now: datetime) -> OnboardingItem:
        """Mark the item running (again, when it is resumed) for `holder`, who must hold the lease."""
        items = onboarding_items.c
        async with self._connections.write(edits_config=False) as connection:
            await _check_lease(connection, holder, now)
            await connection.execute(
                update(onboarding_items)
                .where(items.id == item_id, items.state.in_(WAITING))
                .values(
                    state=case((items.state == "queued", "running"), else_=items.state),
                    starts=items.starts + 1,
                    started_at=case((items.started_at.is_(None), now), else_=items.started_at),
                    updated_at=now,
                )
            )
            return await _one(connection, item_id)

    async def progress(
        self,
        item_id: int,
        holder: str,
        now: datetime,
        *,
        step: StepName,
        steps: Sequence[StepRecord],
        probes: Sequence[ProbeCall] | None = None,
        model_id: int | None = None,
    ) -> OnboardingItem:
        """Record how far the item got; the item as it stands after (its state says if a stop was asked)."""
        values: dict[str, Any] = {"step": step, "steps": [_step_json(s) for s in steps], "updated_at": now}
        if probes is not None:
            values["probes"] = [asdict(p) for p in probes]
        if model_id is not None:
            values["model_id"] = model_id
        items = onboarding_items.c
        async with self._connections.write(edits_config=False) as connection:
            await _check_lease(connection, holder, now)
            await connection.execute(
                update(onboarding_items).where(items.id == item_id, items.state.in_(WAITING)).values(**values)
            )
            return await _one(connection, item_id)

    async def finish(
        self,
        item_id: int,
        holder: str,
        now: datetime,
        *,
        state: ItemState,
        why: str,
        steps: Sequence[StepRecord],
    ) -> OnboardingItem:
        items = onboarding_items.c
        async with self._connections.write(edits_config=False) as connection:
            await _check_lease(connection, holder, now)
            await connection.execute(
                update(onboarding_items)
                .where(items.id == item_id, items.state.in_(WAITING))
                .values(
                    state=state,
                    why=why[:MAX_WHY],
                    steps=[_step_json(s) for s in steps],
                    updated_at=now,
                    finished_at=now,
                )
            )
            return await _one(connection, item_id)

    async def stop(self, actor: str, now: datetime) -> tuple[int, int]:
        """Stop the queue: items not begun end `stopped`, the one being worked is asked to stop after its
        current call. (stopped, asked to stop)."""
        items = onboarding_items.c
        async with self._connections.write(edits_config=False) as connection:
            stopped = await connection.execute(
                update(onboarding_items)
                .where(items.state == "queued")
                .values(
                    state="stopped",
                    why=f"stopped by {actor} before it began",
                    updated_at=now,
                    finished_at=now,
                )
            )
            asked = await connection.execute(
                update(onboarding_items)
                .where(items.state == "running")
                .values(state="stopping", why=f"stopped by {actor}", updated_at=now)
            )
        return stopped.rowcount, asked.rowcount

    async def clear(self) -> int:
        """Forget every finished item; the number forgotten."""
        async with self._connections.write(edits_config=False) as connection:
            cleared = await connection.execute(
                delete(onboarding_items).where(onboarding_items.c.state.in_(FINISHED))
            )
        return cleared.rowcount

    async def last_for_model(self, model_id: int) -> OnboardingItem | None:
        """The newest item that registered this model, if any."""
        async with self._connections.read() as connection:
            found = await _items(connection, onboarding_items.c.model_id == model_id)
        return found[-1] if found else None

    # ---- dismissed candidates --------------------------------------------------------

    async def dismissed(self) -> dict[tuple[str, str], Dismissal]:
        """Every dismissal, by (endpoint, served id)."""
        async with self._connections.read() as connection:
            rows = (await connection.execute(select(onboarding_dismissed))).all()
        return {(row.endpoint, row.served_id): Dismissal(**row._mapping) for row in rows}

    async def dismiss(
        self, endpoint: str, served_ids: Collection[str], actor: str, now: datetime
    ) -> list[str]:
        """Dismiss these served ids of `endpoint` (those dismissed already stay as they were); audited.
        The ids newly dismissed."""
        wanted = sorted(set(served_ids))
        async with self._connections.write(edits_config=False) as connection:
            already = await _dismissed_of(connection, endpoint, wanted)
            new = [served_id for served_id in wanted if served_id not in already]
            for served_id in new:
                await connection.execute(
                    insert(onboarding_dismissed).values(
                        endpoint=endpoint, served_id=served_id, dismissed_at=now, dismissed_by=actor
                    )
                )
            if new:
                await write_audit(
                    connection, actor=actor, entity="candidate", key=endpoint, action="dismiss",
                    after={"served_ids": new},
                )  # fmt: skip
        return new

    async def undismiss(self, endpoint: str, served_ids: Collection[str], actor: str) -> list[str]:
        """Offer these served ids of `endpoint` as candidates again; audited. The ids that were dismissed."""
        wanted = sorted(set(served_ids))
        async with self._connections.write(edits_config=False) as connection:
            found = sorted(await _dismissed_of(connection, endpoint, wanted))
            if found:
                await connection.execute(
                    delete(onboarding_dismissed).where(
                        onboarding_dismissed.c.endpoint == endpoint,
                        onboarding_dismissed.c.served_id.in_(found),
                    )
                )
                await write_audit(
                    connection, actor=actor, entity="candidate", key=endpoint, action="undismiss",
                    before={"served_ids": found},
                )  # fmt: skip
        return found

    # ---- the lease -------------------------------------------------------------------

    async def take_lease(self, holder: str, now: datetime, seconds: float) -> bool:
        """Take or renew the worker's lease for `seconds`; False while another holder's is current."""
        lease = onboarding_lease.c
        async with self._connections.write(edits_config=False) as connection:
            statement = insert_for(connection)(onboarding_lease).values(
                id=LEASE_ROW,
                holder=holder,
                taken_at=now,
                renewed_at=now,
                expires_at=now + timedelta(seconds=seconds),
            )
            statement = statement.on_conflict_do_update(
                index_elements=[lease.id],
                set_={
                    "holder": statement.excluded.holder,
                    "taken_at": case(
                        (lease.holder == holder, lease.taken_at), else_=statement.excluded.taken_at
                    ),
                    "renewed_at": statement.excluded.renewed_at,
                    "expires_at": statement.excluded.expires_at,
                },
                where=or_(lease.holder == holder, lease.expires_at <= now),
            ).returning(lease.holder)
            taken = (await connection.execute(statement)).first()
        return taken is not None

    async def release_lease(self, holder: str, now: datetime) -> None:
        """Let the lease lapse now, so another process takes the queue over at once (a clean shutdown)."""
        async with self._connections.write(edits_config=False) as connection:
            await connection.execute(
                update(onboarding_lease)
                .where(onboarding_lease.c.id == LEASE_ROW, onboarding_lease.c.holder == holder)
                .values(expires_at=now)
            )

    async def lease(self) -> Lease | None:
        async with self._connections.read() as connection:
            row = (
                await connection.execute(select(onboarding_lease).where(onboarding_lease.c.id == LEASE_ROW))
            ).first()
        return None if row is None else Lease(row.holder, row.taken_at, row.renewed_at, row.expires_at)


# ---- helpers ---------------------------------------------------------------------------


async def _refuse_waiting(connection: AsyncConnection, items: Sequence[NewItem]) -> None:
    """Conflict when one of `items` is in the queue already (a second request raced the first)."""
    wanted = {(item.endpoint, item.served_id) for item in items}
    query = select(onboarding_items.c.endpoint, onboarding_items.c.served_id, onboarding_items.c.id).where(
        onboarding_items.c.state.in_(WAITING), onboarding_items.c.endpoint.in_({e for e, _ in wanted})
    )
    for endpoint, served_id, item_id in (await connection.execute(query)).all():
        if (endpoint, served_id) in wanted:
            raise Conflict(
                f"`{served_id}` on `{endpoint}` is in the onboarding queue already (item {item_id})",
                field="items",
            )


async def _check_lease(connection: AsyncConnection, holder: str, now: datetime) -> None:
    lease = onboarding_lease.c
    held = await connection.execute(
        update(onboarding_lease)
        .where(lease.id == LEASE_ROW, lease.holder == holder, lease.expires_at > now)
        .values(renewed_at=now)
    )
    if held.rowcount != 1:
        raise LeaseLost(f"{holder} no longer holds the onboarding queue's lease")


async def _dismissed_of(connection: AsyncConnection, endpoint: str, served_ids: list[str]) -> set[str]:
    if not served_ids:
        return set()
    query = select(onboarding_dismissed.c.served_id).where(
        onboarding_dismissed.c.endpoint == endpoint, onboarding_dismissed.c.served_id.in_(served_ids)
    )
    return set((await connection.execute(query)).scalars())


async def _items(connection: AsyncConnection, where: Any) -> list[OnboardingItem]:
    query = select(onboarding_items).order_by(onboarding_items.c.id)
    if where is not None:
        query = query.where(where)
    return [_item(row) for row in (await connection.execute(query)).all()]


async def _one(connection: AsyncConnection, item_id: int) -> OnboardingItem:
    found = await _items(connection, onboarding_items.c.id == item_id)
    if not found:
        raise LookupError(f"onboarding item {item_id} is gone (cleared while it was worked?)")
    return found[0]


def _step_json(step: StepRecord) -> dict[str, Any]:
    return {
        "name": step.name,
        "state": step.state,
        "detail": step.detail,
        "started_at": None if step.started_at is None else step.started_at.isoformat(),
        "finished_at": None if step.finished_at is None else step.finished_at.isoformat(),
    }


def _step(raw: Mapping[str, Any]) -> StepRecord:
    def moment(value: object) -> datetime | None:
        return datetime.fromisoformat(value) if isinstance(value, str) else None

    return StepRecord(
        name=raw["name"],
        state=raw["state"],
        detail=str(raw.get("detail", "")),
        started_at=moment(raw.get("started_at")),
        finished_at=moment(raw.get("finished_at")),
    )


def _item(row: Row[Any]) -> OnboardingItem:
    fields = dict(row._mapping)
    fields["steps"] = tuple(_step(raw) for raw in fields["steps"])
    fields["probes"] = tuple(ProbeCall(**raw) for raw in fields["probes"])
    return OnboardingItem(**fields)
