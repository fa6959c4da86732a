"""Verdicts on calls, and the record they add up to.

Verdicts are append-only: a later verdict on a call supersedes the earlier
one (the call's current verdict is its latest row) and an identical one
writes nothing. Any evidence that answered can be judged (panel seats,
merges, route turns; what may be judged is `verdict_rules`'), and a panel
seat's verdict may name the seats of its panel it beat (`verdict_pairs`).
Counts are per model and reported under the model's alias now, so renames
keep their record.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any, Literal

from sqlalchemy import ColumnElement, Row, and_, exists, false, func, insert, select, true
from sqlalchemy.ext.asyncio import AsyncConnection

from panelgate.core.evidence import Counts
from panelgate.core.types import JUDGEABLE
from panelgate.store.audit import write_audit
from panelgate.store.connections import Connections
from panelgate.store.errors import NotFound
from panelgate.store.evidence_counts import read_evidence_counts
from panelgate.store.records import OwedSeat, VerdictRecord
from panelgate.store.rules import check_bool, check_text, check_texts, storable
from panelgate.store.tables import evidence, panels, seats, utcnow, verdicts
from panelgate.store.task_words import TaskTally, task_tallies
from panelgate.store.verdict_list import ListedVerdict, newest_verdicts
from panelgate.store.verdict_pairs import count_pairs, pairs_of, write_pairs
from panelgate.store.verdict_rules import checked_better_than, refuse_failed
from panelgate.store.verdict_tallies import ModelTally, count_verdict, judged_per_model, judged_sources

MAX_CLAIMS = 50
MAX_CLAIM = 1000


def _record(row: Row[Any], better_than: tuple[str, ...] = ()) -> VerdictRecord:
    return VerdictRecord(
        id=row.id,
        call=row.call,
        useful=bool(row.useful),
        note=row.note,
        real=tuple(row.real_claims),
        false=tuple(row.false_claims),
        at=row.at,
        actor=row.actor,
        better_than=better_than,
    )


async def _current(connection: AsyncConnection, call: str) -> VerdictRecord | None:
    query = select(verdicts).where(verdicts.c.call == call).order_by(verdicts.c.id.desc()).limit(1)
    row = (await connection.execute(query)).first()
    if row is None:
        return None
    return _record(row, (await pairs_of(connection, [row.id])).get(row.id, ()))


VerdictListener = Callable[[bool, bool], None]
"""Told (useful, pairwise: it names answers it beat) of every verdict written; must not block."""


class Verdicts:
    def __init__(self, connections: Connections, *, useful_max_age_s: float = 5.0) -> None:
        self._connections = connections
        self._listeners: list[VerdictListener] = []
        self._useful_max_age_s = useful_max_age_s
        self._useful: dict[str | None, tuple[float, dict[str, tuple[int, int]]]] = {}
        self._evidence: tuple[float, dict[tuple[str, str], Counts]] | None = None
        self._others_seen = connections.record_generation

    async def record(
        self,
        call: str,
        *,
        useful: bool,
        note: str | None = None,
        real: Sequence[str] | None = None,
        false: Sequence[str] | None = None,
        better_than: Sequence[str] | None = None,
        actor: str,
        source: str | None = None,
    ) -> Literal["created", "superseded", "unchanged"]:
        """Judge a call; a later verdict supersedes, an identical one writes nothing.

        `better_than` names the seats of the call's panel whose answers this one
        beat. A field left as None keeps the call's earlier value (none: empty),
        read in the same transaction, so two verdicts on one call sent at once
        (a judge pressing "useful" then "best") never undo each other. Refused:
        a call that failed, and a `better_than` naming the call itself, another
        panel's call or a failed seat (`verdict_rules`). `source` says where the verdict was given
        from (`claude-code`; the verdict desk checks it); it belongs to this row, never carried over."""
        useful = check_bool(useful, "useful")
        given_note = None if note is None else check_text(note, "note")
        given_real = None if real is None else check_texts(real, "real", most=MAX_CLAIMS, each=MAX_CLAIM)
        given_false = None if false is None else check_texts(false, "false", most=MAX_CLAIMS, each=MAX_CLAIM)
        async with self._connections.write(edits_config=False) as connection:
            known = (
                select(evidence.c.status, seats.c.panel)
                .select_from(evidence.outerjoin(seats, seats.c.call == evidence.c.call))
                .where(evidence.c.call == call)
                # PostgreSQL: one verdict on a call at a time (SQLite has one writer anyway).
                .with_for_update(of=evidence)
            )
            found = (await connection.execute(known)).first() if storable(call) else None
            if found is None:
                raise NotFound(
                    f"no call `{call}` was recorded; use a call id from a reply's `bench` field", field="call"
                )
            refuse_failed(call, found.status)
            current = await _current(connection, call)
            note = given_note if given_note is not None else (current.note if current else "")
            real_claims = given_real if given_real is not None else (current.real if current else ())
            false_claims = given_false if given_false is not None else (current.false if current else ())
            if better_than is None:
                better_than = current.better_than if current else ()
            beaten = await checked_better_than(connection, call, found.panel, better_than)
            verdict = {
                "useful": useful,
                "note": note,
                "real": list(real_claims),
                "false": list(false_claims),
                "better_than": list(beaten),
            }
            if current is not None and _plain(current) == verdict:
                return "unchanged"
            written = await connection.execute(
                insert(verdicts)
                .values(
                    call=call,
                    useful=useful,
                    note=note,
                    real_claims=list(real_claims),
                    false_claims=list(false_claims),
                    at=utcnow(),
                    actor=actor,
                    source=source,
                )
                .returning(verdicts.c.id)
            )
            await write_pairs(connection, written.scalar_one(), beaten)
            await count_verdict(connection, call)
            before = None if current is None else _plain(current)
            self._useful.clear()
            self._evidence = None
            await write_audit(
                connection,
                actor=actor,
                entity="verdict",
                key=call,
                action="verdict",
                before=before,
                after={**verdict, "source": source},
            )
        await self._connections.announce_verdict()
        for listener in self._listeners:
            listener(useful, bool(beaten))
        return "created" if current is None else "superseded"

    def listen(self, listener: VerdictListener) -> None:
        """Have `listener` told of every verdict this process writes (the app counts them for `/metrics`)."""
        self._listeners.append(listener)

    async def current(self, call: str) -> VerdictRecord | None:
        if not storable(call):
            return None
        async with self._connections.read() as connection:
            return await _current(connection, call)

    async def current_of(self, calls: Sequence[str]) -> dict[str, VerdictRecord]:
        """The current verdict of each judged call among `calls`."""
        wanted = list(dict.fromkeys(call for call in calls if storable(call)))
        if not wanted:
            return {}
        latest = select(func.max(verdicts.c.id)).where(verdicts.c.call.in_(wanted)).group_by(verdicts.c.call)
        async with self._connections.read() as connection:
            rows = (await connection.execute(select(verdicts).where(verdicts.c.id.in_(latest)))).all()
            beaten = await pairs_of(connection, [row.id for row in rows])
        return {row.call: _record(row, beaten.get(row.id, ())) for row in rows}

    async def pairwise_counts(self, collection: str | None = None) -> dict[tuple[str, str, str], int]:
        """Per (winner alias, loser alias, shape): how many current verdicts say the winner's answer
        beat the loser's, on panels of that shape (of `collection` when given).

        Aliases are the models' aliases now (renames keep their pairs); a model
        beating itself (a merger that is also a member) is left out. What a
        Bradley–Terry fit per shape reads."""
        if collection is not None and not storable(collection):
            return {}
        async with self._connections.read() as connection:
            return await count_pairs(connection, collection)

    async def record_counts(
        self, collection: str | None, task: str | None, source: str | None = None
    ) -> dict[str, dict[str, Any]]:
        """Per alias: useful, notUseful, judged and the last verdict's time, over current verdicts.

        `collection` keeps evidence of that collection; `task` keeps calls whose
        panel prompt or verdict note holds every one of its words (any case);
        `source` keeps verdicts given from there (`claude-code`).
        """
        if collection is not None and not storable(collection):
            return {}
        where: ColumnElement[bool] = true() if collection is None else evidence.c.collection == collection
        if source is not None:
            where = and_(where, verdicts.c.source == source)
        words = (task or "").lower().split()
        tallies: Sequence[TaskTally | ModelTally]
        async with self._connections.read() as connection:
            if words:
                tallies = await task_tallies(connection, where, words)
            else:  # counted as written: the same cost at any size of the record
                tallies = await judged_per_model(connection, collection, source)
        return {
            tally.alias: {
                "useful": tally.useful,
                "notUseful": tally.judged - tally.useful,
                "judged": tally.judged,
                "lastAt": None if tally.last is None else tally.last.isoformat(),
            }
            for tally in tallies
        }

    async def newest(
        self, collection: str | None = None, source: str | None = None, *, most: int = 20
    ) -> list[ListedVerdict]:
        """The newest current verdicts, one by one (of `collection`, from `source`, when named)."""
        async with self._connections.read() as connection:
            return await newest_verdicts(connection, collection, source, most)

    async def sources(self) -> list[str]:
        """Every source verdicts were given from (`claude-code`, ...), sorted."""
        async with self._connections.read() as connection:
            return await judged_sources(connection)

    async def judged_counts(self, collection: str | None) -> dict[str, tuple[int, int]]:
        """Per alias: (useful, judged) current verdicts on the collection's evidence, as route mode
        orders members.

        Read on every new agent conversation, so a copy is kept for a few
        seconds, dropped at once when this process, another worker of this
        server or another server on the same Redis records a verdict (a
        server sharing only the database sees its verdicts within that).
        """
        self._forget_if_others_judged()
        kept = self._useful.get(collection)
        if kept is not None and time.monotonic() - kept[0] <= self._useful_max_age_s:
            return kept[1]
        tallies = await self.record_counts(collection, None)
        counts = {alias: (int(tally["useful"]), int(tally["judged"])) for alias, tally in tallies.items()}
        self._useful[collection] = (time.monotonic(), counts)
        return counts

    async def evidence_counts(self) -> dict[tuple[str, str], Counts]:
        """Current verdicts and suite results per (alias, shape), as the explorer rule reads them on
        every panel.

        Kept like `judged_counts`: a copy for a few seconds (another process's
        suite answers show within that), dropped at once on any verdict as
        there, and when this process keeps a suite answer. The same
        object is returned while it is kept, so a reader can tell when the
        counts changed.
        """
        self._forget_if_others_judged()
        kept = self._evidence
        if kept is not None and time.monotonic() - kept[0] <= self._useful_max_age_s:
            return kept[1]
        async with self._connections.read() as connection:
            counts = await read_evidence_counts(connection)
        self._evidence = (time.monotonic(), counts)
        return counts

    def _forget_if_others_judged(self) -> None:
        """Drop the kept counts when another process recorded a verdict (`Connections.record_generation`)."""
        seen = self._connections.record_generation
        if seen != self._others_seen:
            self._others_seen = seen
            self._useful.clear()
            self._evidence = None

    def forget_evidence_counts(self) -> None:
        """Drop the kept copy of `evidence_counts`: a suite answer was just kept (the store tells)."""
        self._evidence = None

    async def evidence_counts_in(self, collection: str) -> dict[tuple[str, str], Counts]:
        """Current verdicts per (alias, shape) on one collection's evidence, as the record shows them
        (read fresh each time: the record is asked for rarely, seating never asks for this). Suite
        results are bench-wide and not counted here."""
        if not storable(collection):
            return {}
        async with self._connections.read() as connection:
            return await read_evidence_counts(connection, collection)

    async def false_claims_per_model(self) -> dict[int, int]:
        """Per model id: the false claims people verified in its answers, over current verdicts.

        The confidently-wrong count's part from real work (the suite adds its traps)."""
        latest = select(func.max(verdicts.c.id)).group_by(verdicts.c.call)
        query = (
            select(evidence.c.model_id, verdicts.c.false_claims)
            .select_from(verdicts)
            .join(evidence, evidence.c.call == verdicts.c.call)
            .where(verdicts.c.id.in_(latest))
        )
        counts: dict[int, int] = {}
        async with self._connections.read() as connection:
            for model_id, false_claims in (await connection.execute(query)).all():
                if false_claims:
                    counts[model_id] = counts.get(model_id, 0) + len(false_claims)
        return counts

    async def pending(self, calls: Sequence[str]) -> list[str]:
        """The calls among `calls`, in order, that answered (ok or empty) and have no verdict yet,
        leaving out the seats of panels that owe none."""
        wanted = list(dict.fromkeys(call for call in calls if storable(call)))
        if not wanted:
            return []
        query = select(evidence.c.call).where(
            evidence.c.call.in_(wanted),
            evidence.c.status.in_(JUDGEABLE),
            ~exists().where(verdicts.c.call == evidence.c.call),
            ~exists().where(
                seats.c.call == evidence.c.call,
                panels.c.id == seats.c.panel,
                panels.c.owes_verdicts.is_(false()),
            ),
        )
        async with self._connections.read() as connection:
            found = set((await connection.execute(query)).scalars())
        return [call for call in wanted if call in found]

    async def owed(
        self, caller: str, since: datetime, *, key_id: int | None = None, most_panels: int = 20
    ) -> list[OwedSeat]:
        """The seats of the caller's newest panels since `since` that answered and have no verdict yet
        (panels that owe none left out).

        A gateway key's panels are those with its id (`key_id`), whatever their
        caller's name: names need not be unique. A caller without a key
        (`key_id` None) owes the keyless panels recorded under `caller`."""
        whose = panels.c.caller_key_id == key_id
        if key_id is None:
            whose = and_(panels.c.caller_key_id.is_(None), panels.c.caller == caller)
        recent = (
            select(panels.c.id)
            .where(whose, panels.c.at >= since, panels.c.owes_verdicts.is_(true()))
            .order_by(panels.c.at.desc(), panels.c.id.desc())
            .limit(max(1, most_panels))
            .subquery()
        )
        query = (
            select(
                seats.c.call,
                panels.c.id,
                panels.c.collection,
                panels.c.at,
                seats.c.label,
                seats.c.alias,
                panels.c.shape,
                panels.c.prompt_preview,
            )
            .join(panels, panels.c.id == seats.c.panel)
            .join(evidence, evidence.c.call == seats.c.call)
            .where(
                seats.c.panel.in_(select(recent.c.id)),
                evidence.c.status.in_(JUDGEABLE),
                ~exists().where(verdicts.c.call == seats.c.call),
            )
            .order_by(panels.c.at.desc(), panels.c.id.desc(), seats.c.position)
        )
        async with self._connections.read() as connection:
            rows = (await connection.execute(query)).all()
        return [OwedSeat(*row) for row in rows]

    async def collections_of(self, calls: Sequence[str]) -> dict[str, str | None]:
        """The collection each known call among `calls` answered for (None: asked outside one)."""
        wanted = list(dict.fromkeys(call for call in calls if storable(call)))
        if not wanted:
            return {}
        query = select(evidence.c.call, evidence.c.collection).where(evidence.c.call.in_(wanted))
        async with self._connections.read() as connection:
            return {call: collection for call, collection in (await connection.execute(query)).all()}


def _plain(verdict: VerdictRecord) -> dict[str, Any]:
    return {
        "useful": verdict.useful,
        "note": verdict.note,
        "real": list(verdict.real),
        "false": list(verdict.false),
        "better_than": list(verdict.better_than),
    }
