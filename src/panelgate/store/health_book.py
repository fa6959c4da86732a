"""The evidence a model's health is judged on: its calls, its probes, and its endpoint's model list.

Calls are read from the usage ledger (every panel seat, merge, route turn
and probe is a row there), keyed by endpoint and served id, which a rename
does not change. Probes keep what the ledger cannot: the error's words, and
what a speed test or capability probe measured. Listing checks remember
since when an endpoint's `/models` has left a model out. Nothing here
decides anything; `core.health` does.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime
from typing import Any

from sqlalchemy import Row, func, insert, select
from sqlalchemy.ext.asyncio import AsyncConnection

from panelgate.core.health import Outcome
from panelgate.store.connections import Connections
from panelgate.store.tables import audit_log, listing_checks, probes, usage_ledger
from panelgate.store.usage_book import UsageBook

Where = tuple[str, str]
"""(endpoint, served id)."""
MAX_FAILURE_ROWS = 5000
FAILURE_EVIDENCE = ("ready", "confirm")
"""The probes whose failures count against a model: a speed test's long prompt may pass a small
context window, and a model without tools refuses the capability probe, yet both answer people."""


@dataclass(frozen=True)
class ProbeRecord:
    at: datetime
    model_id: int
    alias: str
    endpoint: str
    served_id: str
    probe: str
    """ready, confirm, speed-tiny, speed-large, tools or reasoning."""
    status: str
    """ok, empty, error, or refused (not sent: a rate limit would have refused it)."""
    error_kind: str | None = None
    error: str = ""
    seconds: float = 0.0
    measures: dict[str, Any] = field(default_factory=dict)
    caller: str = "scheduler"
    id: int | None = None


@dataclass(frozen=True)
class CallHistory:
    last_answer: datetime | None = None
    failures: tuple[Outcome, ...] = ()
    latest: Outcome | None = None


class HealthBook:
    def __init__(self, connections: Connections, usage: UsageBook) -> None:
        self._connections = connections
        self._usage = usage

    # ---- probes ----------------------------------------------------------------------

    async def add_probe(self, record: ProbeRecord) -> ProbeRecord:
        values = {k: v for k, v in asdict(record).items() if k != "id"}
        async with self._connections.write(edits_config=False) as connection:
            inserted = await connection.execute(insert(probes).values(**values).returning(probes.c.id))
            return replace(record, id=inserted.scalar_one())

    async def latest_probes(
        self, model_ids: Collection[int], since: datetime
    ) -> dict[int, dict[str, ProbeRecord]]:
        """Each model's newest probe of each kind since `since`."""
        if not model_ids:
            return {}
        query = (
            select(probes)
            .where(probes.c.model_id.in_(list(model_ids)), probes.c.at >= since)
            .order_by(probes.c.at.desc(), probes.c.id.desc())
        )
        async with self._connections.read() as connection:
            rows = (await connection.execute(query)).all()
        newest: dict[int, dict[str, ProbeRecord]] = {}
        for row in rows:
            newest.setdefault(row.model_id, {}).setdefault(row.probe, _probe(row))
        return newest

    async def newest_of_kind(self, probe: str, since: datetime) -> dict[int, ProbeRecord]:
        """Each model's newest probe of one kind since `since` (seating reads the long-prompt test)."""
        query = (
            select(probes)
            .where(probes.c.probe == probe, probes.c.at >= since)
            .order_by(probes.c.at.desc(), probes.c.id.desc())
        )
        async with self._connections.read() as connection:
            rows = (await connection.execute(query)).all()
        newest: dict[int, ProbeRecord] = {}
        for row in rows:
            newest.setdefault(row.model_id, _probe(row))
        return newest

    async def recent_probes(self, model_id: int, limit: int = 20) -> list[ProbeRecord]:
        query = (
            select(probes)
            .where(probes.c.model_id == model_id)
            .order_by(probes.c.at.desc(), probes.c.id.desc())
            .limit(max(1, limit))
        )
        async with self._connections.read() as connection:
            return [_probe(row) for row in (await connection.execute(query)).all()]

    # ---- calls (the usage ledger) ------------------------------------------------------

    async def calls(self, since: Mapping[Where, datetime]) -> dict[Where, CallHistory]:
        """Per model (endpoint, served id): its last answer and the failures after it, from `since`.

        Calls come from the usage ledger and probes from the probes table
        (whose reading of a reply is the probe's own: reasoning alone is
        alive); the ledger's rows of probes are left out, so none counts
        twice. Any probe that answered is an answer; only the one-word
        probes' failures count (`FAILURE_EVIDENCE`).
        """
        await self._usage.flush()
        if not since:
            return {}
        floor = min(since.values())
        endpoints = sorted({endpoint for endpoint, _ in since})
        async with self._connections.read() as connection:
            last_ok = await _answers(connection, endpoints, floor)
            failed = await _failures(connection, endpoints, floor)
        histories: dict[Where, CallHistory] = {}
        for where, start in since.items():
            answered = last_ok.get(where)
            answered = answered if answered is not None and answered >= start else None
            mine = sorted(
                (outcome for key, outcome in failed if key == where
                 and (outcome.at > answered if answered is not None else outcome.at >= start)),
                key=lambda outcome: outcome.at,
            )  # fmt: skip
            latest = mine[-1] if mine else (None if answered is None else Outcome(answered, "ok"))
            histories[where] = CallHistory(answered, tuple(mine), latest)
        return histories

    async def restored_at(self, names: Iterable[str]) -> dict[str, datetime]:
        """When each of these aliases (current or former) was last restored, from the audit log."""
        wanted = sorted(set(names))
        if not wanted:
            return {}
        query = (
            select(audit_log.c.key, func.max(audit_log.c.at))
            .where(
                audit_log.c.entity == "model", audit_log.c.action == "restore", audit_log.c.key.in_(wanted)
            )
            .group_by(audit_log.c.key)
        )
        async with self._connections.read() as connection:
            return {key: at for key, at in (await connection.execute(query)).all()}

    # ---- endpoint listings ---------------------------------------------------------------

    async def note_listing(
        self, endpoint: str, on_bench: Collection[str], listed: Collection[str], now: datetime
    ) -> None:
        """Record which of `on_bench` (served ids) the endpoint's model list names now."""
        names = set(listed)
        async with self._connections.write(edits_config=False) as connection:
            known = await _listing_rows(connection, endpoint)
            for served_id in on_bench:
                row = known.get(served_id)
                seen = served_id in names
                values = {
                    "checked_at": now,
                    "last_seen_at": now if seen else (row.last_seen_at if row else None),
                    "missing_since": None if seen else ((row.missing_since if row else None) or now),
                }
                if row is None:
                    await connection.execute(
                        insert(listing_checks).values(endpoint=endpoint, served_id=served_id, **values)
                    )
                else:
                    await connection.execute(
                        listing_checks.update()
                        .where(listing_checks.c.endpoint == endpoint, listing_checks.c.served_id == served_id)
                        .values(**values)
                    )

    async def missing(self) -> dict[Where, datetime]:
        """Every (endpoint, served id) its endpoint's list has left out, and since when."""
        query = select(listing_checks).where(listing_checks.c.missing_since.is_not(None))
        async with self._connections.read() as connection:
            rows = (await connection.execute(query)).all()
        return {(row.endpoint, row.served_id): row.missing_since for row in rows}


async def _answers(
    connection: AsyncConnection, endpoints: list[str], floor: datetime
) -> dict[Where, datetime]:
    ledger, probe = usage_ledger.c, probes.c
    calls = (
        select(ledger.endpoint, ledger.served_id, func.max(ledger.at))
        .where(
            ledger.endpoint.in_(endpoints),
            ledger.at >= floor,
            ledger.status == "ok",
            ledger.purpose != "probe",
        )
        .group_by(ledger.endpoint, ledger.served_id)
    )
    probed = (
        select(probe.endpoint, probe.served_id, func.max(probe.at))
        .where(probe.endpoint.in_(endpoints), probe.at >= floor, probe.status == "ok")
        .group_by(probe.endpoint, probe.served_id)
    )
    newest: dict[Where, datetime] = {}
    for query in (calls, probed):
        for endpoint, served_id, at in (await connection.execute(query)).all():
            newest[(endpoint, served_id)] = max(at, newest.get((endpoint, served_id), at))
    return newest


async def _failures(
    connection: AsyncConnection, endpoints: list[str], floor: datetime
) -> list[tuple[Where, Outcome]]:
    ledger, probe = usage_ledger.c, probes.c
    calls = (
        select(
            ledger.endpoint,
            ledger.served_id,
            ledger.at,
            ledger.status,
            ledger.error_kind,
            ledger.purpose,
            ledger.seconds,
        )
        .where(
            ledger.endpoint.in_(endpoints),
            ledger.at >= floor,
            ledger.status != "ok",
            ledger.purpose != "probe",
        )
        .order_by(ledger.at.desc())
        .limit(MAX_FAILURE_ROWS)
    )
    probed = (
        select(probe.endpoint, probe.served_id, probe.at, probe.status, probe.error_kind, probe.seconds)
        .where(
            probe.endpoint.in_(endpoints),
            probe.at >= floor,
            probe.status != "ok",
            probe.probe.in_(FAILURE_EVIDENCE),
        )
        .order_by(probe.at.desc())
        .limit(MAX_FAILURE_ROWS)
    )
    found = [
        ((row.endpoint, row.served_id), Outcome(row.at, row.status, row.error_kind, row.purpose, row.seconds))
        for row in (await connection.execute(calls)).all()
    ]
    for row in (await connection.execute(probed)).all():
        refused = row.status == "refused"  # not sent: what pacing refused reads as a rate limit
        outcome = Outcome(
            row.at,
            "error" if refused else row.status,
            "capacity" if refused else row.error_kind,
            "probe",
            row.seconds,
        )
        found.append(((row.endpoint, row.served_id), outcome))
    return found


async def _listing_rows(connection: AsyncConnection, endpoint: str) -> dict[str, Row[Any]]:
    query = select(listing_checks).where(listing_checks.c.endpoint == endpoint)
    return {row.served_id: row for row in (await connection.execute(query)).all()}


def _probe(row: Row[Any]) -> ProbeRecord:
    fields = row._mapping
    return ProbeRecord(**{name: fields[name] for name in ProbeRecord.__dataclass_fields__})
