"""Recorded panels, their seats, and the evidence each seat leaves.

A panel, its seats and one evidence row per seat whose model is on the bench
are written in one transaction, so a finished panel is either wholly
recorded or not at all. Evidence is keyed by the model's id, not its alias:
what a model earned follows it through renames. `last_seated` is read on
every panel to find the stalest models, so it is one grouped query over the
(model, time) index, and panels keep a short-lived copy of it (`SeatingClock`).
Panels finishing together are written together (`WriteBatch`).
"""

from __future__ import annotations

import asyncio
import bisect
import logging
import time
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Row, bindparam, exists, func, insert, select, true, update
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncConnection

from panelgate.core.types import JUDGEABLE, Skip
from panelgate.store.batch import WriteBatch
from panelgate.store.bulk import insert_rows
from panelgate.store.connections import Connections
from panelgate.store.errors import Invalid
from panelgate.store.records import PanelRecord, SeatRecord
from panelgate.store.seating_clock import SeatingClock
from panelgate.store.served_as import ServedAs
from panelgate.store.shared_read import SharedRead
from panelgate.store.tables import evidence, models, panels, seats, verdicts

PREVIEW_CHARS = 200
log = logging.getLogger(__name__)


ON_BENCH = select(models.c.alias, models.c.id).where(
    models.c.alias.in_(bindparam("aliases", expanding=True)), models.c.retired_at.is_(None)
)
"""(alias, model id) of each of the `aliases` on the bench now; built once, as every panel runs it."""

OWES_A_VERDICT = exists().where(
    seats.c.panel == panels.c.id,
    evidence.c.call == seats.c.call,
    evidence.c.status.in_(JUDGEABLE),
    ~exists().where(verdicts.c.call == seats.c.call),
)
"""A panel has a seat that answered (its evidence can be judged) and has no verdict yet."""


async def bench_ids(connection: AsyncConnection, aliases: Sequence[str]) -> dict[str, int]:
    """The model id of each alias that is on the bench now."""
    rows = (await connection.execute(ON_BENCH, {"aliases": sorted(set(aliases))})).all()
    return {alias: model_id for alias, model_id in rows}


def _panel_values(panel: PanelRecord, seat_count: int) -> dict[str, Any]:
    return {
        "id": panel.id,
        "collection": panel.collection,
        "at": panel.at,
        "caller": panel.caller,
        "caller_key_id": panel.caller_key_id,
        "shape": panel.shape,
        "shape_by": panel.shape_by,
        "reply": panel.reply,
        "note": panel.note,
        "skipped": [skip.as_dict() if isinstance(skip, Skip) else dict(skip) for skip in panel.skipped],
        "prompt_preview": panel.prompt_preview[:PREVIEW_CHARS],
        "seats": seat_count,
        "owes_verdicts": panel.owes_verdicts,
        "options": dict(panel.options),
    }


def _seat_values(seat: SeatRecord, model_id: int | None) -> dict[str, Any]:
    return {
        "call": seat.call,
        "panel": seat.panel,
        "position": seat.position,
        "label": seat.label,
        "kind": seat.kind,
        "model_id": model_id,
        "alias": seat.alias,
        "status": seat.status,
        "seconds": seat.seconds,
        "answer": seat.answer,
        "error": seat.error,
        "tokens_in": seat.tokens_in,
        "tokens_out": seat.tokens_out,
        "served_as": seat.served_as,
        "attempts": seat.attempts,
    }


def _panel(row: Row[Any]) -> PanelRecord:
    return PanelRecord(
        id=row.id,
        collection=row.collection,
        at=row.at,
        shape=row.shape,
        shape_by=row.shape_by,
        reply=row.reply,
        caller=row.caller,
        caller_key_id=row.caller_key_id,
        note=row.note,
        skipped=tuple(Skip(**skip) for skip in row.skipped),
        prompt_preview=row.prompt_preview,
        seats=row.seats,
        owes_verdicts=row.owes_verdicts,
        options=row.options,
    )


def _seat(row: Row[Any]) -> SeatRecord:
    return SeatRecord(
        call=row.call,
        panel=row.panel,
        position=row.position,
        label=row.label,
        kind=row.kind,
        alias=row.alias,
        status=row.status,
        seconds=row.seconds,
        answer=row.answer,
        error=row.error,
        tokens_in=row.tokens_in,
        tokens_out=row.tokens_out,
        model_id=row.model_id,
        served_as=row.served_as,
        attempts=row.attempts,
    )


def _evidence_values(panel: PanelRecord, seat: SeatRecord, model_id: int) -> dict[str, Any]:
    return {
        "call": seat.call,
        "model_id": model_id,
        "source": "merge" if seat.kind == "merger" else "panel",
        "collection": panel.collection,
        "shape": panel.shape,
        "at": panel.at,
        "status": seat.status,
    }


class Panels:
    def __init__(self, connections: Connections) -> None:
        self._connections = connections
        self._seating = SeatingClock()
        self._rereading: asyncio.Task[None] | None = None
        self._seating_reads = SharedRead(self._read_seating, "seating clock read")
        self._batch: WriteBatch[tuple[PanelRecord, Sequence[SeatRecord]]] = WriteBatch(self._record_many)
        self._recent_times: tuple[float, int, list[datetime]] | None = None
        self.served = ServedAs(connections)
        """What the seats' replies said of the model that answered (`served_as`)."""

    async def record(self, panel: PanelRecord, seat_records: Sequence[SeatRecord]) -> None:
        """Write the panel, its seats and their evidence together (batched with panels finishing now).

        A seat's `model_id`, when given, is the model that sat (as seated, so a
        rename or retirement meanwhile changes nothing); without it the model
        on the bench under that alias now is looked up.
        """
        strays = [seat.call for seat in seat_records if seat.panel != panel.id]
        if strays:
            raise Invalid(f"seats {', '.join(strays)} do not belong to panel {panel.id}", field="seats")
        await self._batch.submit((panel, tuple(seat_records)))

    async def _record_many(self, recorded: Sequence[tuple[PanelRecord, Sequence[SeatRecord]]]) -> None:
        def write(connection: Connection) -> dict[str, int]:
            ids = {s.alias: s.model_id for _, seated in recorded for s in seated if s.model_id is not None}
            unknown = sorted({s.alias for _, seated in recorded for s in seated if s.model_id is None})
            if unknown:  # the engine passes the ids it seated; anyone else gets them looked up
                ids.update(connection.execute(ON_BENCH, {"aliases": unknown}).all())
            insert_rows(connection, panels, [_panel_values(panel, len(seated)) for panel, seated in recorded])
            insert_rows(
                connection,
                seats,
                [_seat_values(seat, ids.get(seat.alias)) for _, seated in recorded for seat in seated],
            )
            found = [
                _evidence_values(panel, seat, ids[seat.alias])
                for panel, seated in recorded
                for seat in seated
                if seat.alias in ids
            ]
            insert_rows(connection, evidence, found)
            return ids

        ids = await self._connections.write_all_at_once(write)
        for panel, seated in recorded:
            self._seating.saw([seat.alias for seat in seated if seat.alias in ids], panel.at)
            self._saw_panel(panel.at)

    async def record_evidence(
        self,
        call: str,
        alias: str,
        *,
        source: str,
        collection: str | None,
        shape: str | None,
        at: datetime,
        status: str,
    ) -> bool:
        """Evidence that is not a panel seat (a route turn, say); False when `alias` is not on the bench."""
        async with self._connections.write(edits_config=False) as connection:
            ids = await bench_ids(connection, [alias])
            if alias not in ids:
                return False
            await connection.execute(
                insert(evidence).values(
                    call=call,
                    model_id=ids[alias],
                    source=source,
                    collection=collection,
                    shape=shape,
                    at=at,
                    status=status,
                )
            )
        self._seating.saw([alias], at)
        return True

    async def get(self, panel_id: str) -> tuple[PanelRecord, list[SeatRecord]] | None:
        async with self._connections.read() as connection:
            row = (await connection.execute(select(panels).where(panels.c.id == panel_id))).first()
            if row is None:
                return None
            query = select(seats).where(seats.c.panel == panel_id).order_by(seats.c.position)
            return _panel(row), [_seat(seat) for seat in (await connection.execute(query)).all()]

    async def seat(self, call: str) -> SeatRecord | None:
        async with self._connections.read() as connection:
            row = (await connection.execute(select(seats).where(seats.c.call == call))).first()
        return None if row is None else _seat(row)

    async def settle_seat(
        self,
        call: str,
        *,
        status: str,
        seconds: float,
        answer: str,
        error: str,
        tokens_in: int | None,
        tokens_out: int | None,
        served_as: str | None = None,
        attempts: int = 1,
    ) -> bool:
        """A seat recorded `timeout` (its panel replied by the caller's deadline) takes its real
        outcome, its evidence too, so verdicts and standings see it as if it had been waited for.
        False when the call is not a `timeout` seat (unknown, or settled already)."""
        outcome = {"status": status, "seconds": seconds, "answer": answer, "error": error,
                   "served_as": served_as, "attempts": attempts}  # fmt: skip
        async with self._connections.write(edits_config=False) as connection:
            settled = await connection.execute(
                update(seats)
                .where(seats.c.call == call, seats.c.status == "timeout")
                .values(**outcome, tokens_in=tokens_in, tokens_out=tokens_out)
            )
            if not settled.rowcount:
                return False
            await connection.execute(update(evidence).where(evidence.c.call == call).values(status=status))
        return True

    async def recent(
        self, limit: int = 20, collection: str | None = None, *, owed: bool = False
    ) -> list[tuple[PanelRecord, list[SeatRecord]]]:
        """The newest panels first, each with its seats in seat order; `owed`: only panels with a seat
        still owed a verdict (answered, not judged, of a panel that owes verdicts)."""
        query = select(panels).order_by(panels.c.at.desc(), panels.c.id.desc()).limit(max(1, limit))
        if collection is not None:
            query = query.where(panels.c.collection == collection)
        if owed:
            query = query.where(panels.c.owes_verdicts.is_(true()), OWES_A_VERDICT)
        async with self._connections.read() as connection:
            rows = (await connection.execute(query)).all()
            by_panel: dict[str, list[SeatRecord]] = {row.id: [] for row in rows}
            seat_query = select(seats).where(seats.c.panel.in_(by_panel)).order_by(seats.c.position)
            for seat in (await connection.execute(seat_query)).all():
                by_panel[seat.panel].append(_seat(seat))
        return [(_panel(row), by_panel[row.id]) for row in rows]

    async def recent_times(self, most: int, *, max_age_s: float = 1.0) -> list[datetime]:
        """When the newest `most` panels of the whole gateway were seated, oldest first.

        The staleness floor counts the panels each model has not sat since it
        last did; a copy serves for `max_age_s`, with this process's own panels
        added as they are recorded (other processes' newest panels may be
        missing from it that long).
        """
        kept = self._recent_times
        if kept is not None and kept[1] >= most and time.monotonic() - kept[0] <= max_age_s:
            return kept[2][-most:]
        query = select(panels.c.at).order_by(panels.c.at.desc()).limit(max(1, most))
        async with self._connections.read() as connection:
            found = [at for (at,) in (await connection.execute(query)).all()]
        found.reverse()
        self._recent_times = (time.monotonic(), most, found)
        return found

    def _saw_panel(self, at: datetime) -> None:
        """This process's own panel joins the kept copy at once (other processes' at the next read)."""
        kept = self._recent_times
        if kept is not None:
            bisect.insort(kept[2], at)
            del kept[2][: -kept[1]]

    async def last_seated(self, *, cached: bool = False) -> dict[str, datetime]:
        """When each model last sat (any evidence), keyed by its alias now; the bench wins a shared alias.

        `cached` accepts the seating clock's copy while it is fresh (what a
        panel's seating reads); without it the evidence is read now.
        """
        generation = self._connections.config_generation
        if cached and (known := self._seating.current(generation)) is not None:
            if self._seating.is_old() and (self._rereading is None or self._rereading.done()):
                self._rereading = asyncio.create_task(self._reread_seating(generation))
            return known
        if cached:  # the copy was dropped: one read for the whole crowd of panels finding it so
            return await self._seating_reads.get(generation)
        found = await self._read_last_seated()
        self._seating.replace(found, generation)
        return found

    async def _read_seating(self) -> dict[str, datetime]:
        generation = self._connections.config_generation
        found = await self._read_last_seated()
        self._seating.replace(found, generation)
        return found

    async def _reread_seating(self, generation: int) -> None:
        """A fresh copy of the seating clock while panels go on with the old one."""
        try:
            self._seating.refresh(await self._read_last_seated(), generation)
        except Exception:  # the old copy serves until the next try
            log.warning("could not re-read when each model last sat", exc_info=True)

    async def _read_last_seated(self) -> dict[str, datetime]:
        # One index lookup per model: grouping the evidence instead reads all of it, every second.
        latest = select(func.max(evidence.c.at)).where(evidence.c.model_id == models.c.id).scalar_subquery()
        query = select(models.c.alias, latest).order_by(models.c.retired_at.is_(None))
        async with self._connections.read() as connection:
            rows = (await connection.execute(query)).all()
        return {alias: at for alias, at in rows if at is not None}
