"""Health: probing models, and reading each model's status from the evidence.

`HealthDesk` is what the scheduled jobs and the admin API share: it sends
the probes (`probe_kinds`) and stores what they found, gathers a model's
evidence from the store and hands it to the rules in `core.health`, so the
status a person sees and the decision auto-retire makes come from one
reading. Probes of several models run side by side, a few at a time, so a
bench of fifty does not wait on its slowest member fifty times over.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import TypeVar

from panelgate.core.health import Evidence, Health, RetirePlan, guard_connections, health_of, plan_for
from panelgate.engine import probe_kinds
from panelgate.engine.probe_call import ProbeReading, ask_probe
from panelgate.engine.seat import target_for
from panelgate.store import Database, EndpointRecord, ModelRecord
from panelgate.store.health_book import ProbeRecord
from panelgate.upstream import UpstreamClient
from panelgate.upstream.ledger_notes import CallTag

T = TypeVar("T")

EVIDENCE_WINDOW = timedelta(days=14)
"""How far back calls count; the longest rule (no answer for 7 days) needs half of it."""
PROBE_DEADLINE_S = 90.0
LARGE_DEADLINE_S = 180.0
SPEED_RUNS = 3
AT_ONCE = 4


def utcnow() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class ModelHealth:
    alias: str
    endpoint: str
    served_id: str
    health: Health
    last_answer_at: datetime | None
    last_call_at: datetime | None
    probes: list[ProbeRecord] = field(default_factory=list)
    """Its newest probe of each kind."""


@dataclass(frozen=True)
class BenchReading:
    """Every model's evidence and auto-retire plan, read together (the connection guard needs all)."""

    models: list[ModelRecord]
    evidence: dict[str, Evidence]
    plans: dict[str, RetirePlan]
    down_connections: dict[str, tuple[str, ...]]


@dataclass(frozen=True)
class ProbeRound:
    """What one probe job found across the bench."""

    probed: int = 0
    answered: int = 0
    failed: int = 0
    refused: int = 0

    def summary(self, what: str) -> str:
        if not self.probed:
            return f"no model to {what}"
        return (
            f"{what}: {self.probed} model(s); {self.answered} answered, {self.failed} failed, "
            f"{self.refused} not sent (rate limits)"
        )


class HealthDesk:
    def __init__(
        self,
        db: Database,
        client: UpstreamClient,
        *,
        now: Callable[[], datetime] = utcnow,
        at_once: int = AT_ONCE,
        speed_runs: int = SPEED_RUNS,
    ) -> None:
        self._db = db
        self._client = client
        self._now = now
        self._at_once = at_once
        self._speed_runs = speed_runs

    # ---- probes ----------------------------------------------------------------------

    async def probe(self, model: ModelRecord, *, caller: str, probe: str = "ready") -> ProbeRecord:
        """One one-word call (`probe` is `ready`, or `confirm` when it checks a failure)."""
        reading = await self._ask(model, probe_kinds.READY_BODY, caller, PROBE_DEADLINE_S)
        return await self._keep(model, probe, reading, caller)

    async def speed_test(self, model: ModelRecord, *, caller: str) -> list[ProbeRecord]:
        kept = []
        for probe, body, deadline in (
            ("speed-tiny", probe_kinds.READY_BODY, PROBE_DEADLINE_S),
            ("speed-large", probe_kinds.large_body(), LARGE_DEADLINE_S),
        ):
            readings = [await self._ask(model, body, caller, deadline) for _ in range(self._speed_runs)]
            answered = [r for r in readings if r.status == "ok"]
            shown = answered[-1] if answered else readings[-1]
            kept.append(await self._keep(model, probe, shown, caller, probe_kinds.speed_measures(readings)))
        return kept

    async def capabilities(self, model: ModelRecord, *, caller: str) -> list[ProbeRecord]:
        tools = await self._ask(model, probe_kinds.TOOLS_BODY, caller, PROBE_DEADLINE_S)
        reasoning = await self._ask(model, probe_kinds.REASONING_BODY, caller, PROBE_DEADLINE_S)
        return [
            await self._keep(model, "tools", tools, caller, probe_kinds.tools_measures(tools)),
            await self._keep(
                model, "reasoning", reasoning, caller, probe_kinds.reasoning_measures(reasoning)
            ),
        ]

    async def probe_round(
        self,
        models: Sequence[ModelRecord],
        work: Callable[[ModelRecord], Awaitable[ProbeRecord | list[ProbeRecord]]],
    ) -> ProbeRound:
        """`work` for each model, a few at a time; what came of it, counted per model."""
        found = await self.each(models, work)
        statuses = [
            [r.status for r in (result if isinstance(result, list) else [result])] for result in found
        ]
        return ProbeRound(
            probed=len(statuses),
            answered=sum(1 for s in statuses if "ok" in s),
            failed=sum(1 for s in statuses if "ok" not in s and any(x in ("error", "empty") for x in s)),
            refused=sum(1 for s in statuses if s and all(x == "refused" for x in s)),
        )

    async def each(
        self, models: Iterable[ModelRecord], work: Callable[[ModelRecord], Awaitable[T]]
    ) -> list[T]:
        gate = asyncio.Semaphore(self._at_once)

        async def one(model: ModelRecord) -> T:
            async with gate:
                return await work(model)

        return list(await asyncio.gather(*(one(model) for model in models)))

    async def probed_models(self, *, ad_hoc: bool) -> list[ModelRecord]:
        """The models a probe job covers: on the bench, able to chat (not `image`), not held by the price
        watch (a free model turned paid: its calls would spend money nobody allowed), ad hoc ones if asked."""
        held = {model_id for model_id, hold in (await self._db.facts.holds()).items() if hold.state == "held"}
        return [
            m
            for m in await self._db.models.list()
            if m.role != "image" and m.id not in held and (ad_hoc or not m.ad_hoc)
        ]

    async def _ask(
        self, model: ModelRecord, body: Mapping[str, object], caller: str, deadline_s: float
    ) -> ProbeReading:
        endpoints = await self._endpoints()
        tag = CallTag("probe", caller, model.alias)
        target = None if model.endpoint_gone else target_for(model.to_info(), endpoints)
        return await ask_probe(self._client, target, body, deadline_s=deadline_s, tag=tag)

    async def _keep(
        self,
        model: ModelRecord,
        probe: str,
        reading: ProbeReading,
        caller: str,
        measures: dict[str, object] | None = None,
    ) -> ProbeRecord:
        return await self._db.health.add_probe(
            ProbeRecord(
                at=self._now(),
                model_id=model.id,
                alias=model.alias,
                endpoint=model.endpoint,
                served_id=model.served_id,
                probe=probe,
                status=reading.status,
                error_kind=reading.error_kind,
                error=reading.error,
                seconds=round(reading.seconds, 3),
                measures=dict(measures or {}),
                caller=caller,
            )
        )

    async def _endpoints(self) -> dict[str, EndpointRecord]:
        return (await self._db.bench.snapshot()).endpoints

    # ---- reading the evidence ------------------------------------------------------------

    async def read_bench(self) -> BenchReading:
        """Every model on the bench (not `image`: it never chats) with its evidence and plan."""
        now = self._now()
        models = [m for m in await self._db.models.list() if m.role != "image"]
        evidence = await self.evidence(models)
        plans = {alias: plan_for(found, now) for alias, found in evidence.items()}
        guarded = guard_connections(evidence, plans)
        return BenchReading(models, evidence, guarded.plans, guarded.down_connections)

    async def evidence(self, models: Sequence[ModelRecord]) -> dict[str, Evidence]:
        now = self._now()
        restored = await self._db.health.restored_at(n for m in models for n in (m.alias, *m.former_aliases))
        starts = {m.id: _evidence_start(m, restored, now) for m in models}
        calls = await self._db.health.calls({(m.endpoint, m.served_id): starts[m.id] for m in models})
        missing = await self._db.health.missing()
        probes = await self._db.health.latest_probes([m.id for m in models], now - EVIDENCE_WINDOW)
        found = {}
        for m in models:
            history = calls.get((m.endpoint, m.served_id))
            gone_since = missing.get((m.endpoint, m.served_id))
            found[m.alias] = Evidence(
                alias=m.alias,
                endpoint=m.endpoint,
                last_answer=history.last_answer if history else None,
                failures=history.failures if history else (),
                latest=history.latest if history else None,
                missing_since=gone_since if gone_since is not None and gone_since >= starts[m.id] else None,
                reply_seconds=_reply_seconds(probes.get(m.id, {})),
            )
        return found

    async def report(self, alias: str | None = None) -> list[ModelHealth]:
        """Each model's status (one model's when `alias` is given), retired models included."""
        now = self._now()
        reading = await self.read_bench()
        retired = [m for m in await self._db.models.list(include_retired=True) if m.retired]
        models = [*reading.models, *retired]
        if alias is not None:
            models = [m for m in models if alias in (m.alias, *m.former_aliases)][:1]
        probes = await self._db.health.latest_probes([m.id for m in models], now - timedelta(days=365))
        shown = []
        for m in models:
            evidence = reading.evidence.get(m.alias, Evidence(m.alias, m.endpoint))
            plan = reading.plans.get(m.alias, RetirePlan("keep"))
            health = health_of(evidence, plan, now, retired_why=m.retired_why if m.retired else None)
            latest = evidence.latest
            shown.append(
                ModelHealth(
                    alias=m.alias,
                    endpoint=m.endpoint,
                    served_id=m.served_id,
                    health=health,
                    last_answer_at=evidence.last_answer,
                    last_call_at=None if latest is None else latest.at,
                    probes=sorted(probes.get(m.id, {}).values(), key=lambda p: p.probe),
                )
            )
        return shown


def _evidence_start(model: ModelRecord, restored: Mapping[str, datetime], now: datetime) -> datetime:
    """Calls count from when the model was added or last restored (a restore starts it afresh)."""
    moments = [model.created_at, now - EVIDENCE_WINDOW]
    moments += [restored[name] for name in (model.alias, *model.former_aliases) if name in restored]
    return max(moments)


def _reply_seconds(newest: Mapping[str, ProbeRecord]) -> float | None:
    """How long a one-word answer takes: the speed test's median when newer, else the newest probe's."""
    answered = [
        p for kind, p in newest.items() if kind in ("ready", "confirm", "speed-tiny") and p.status == "ok"
    ]
    if not answered:
        return None
    latest = max(answered, key=lambda p: p.at)
    median = latest.measures.get("p50_s") if latest.probe == "speed-tiny" else None
    return float(median) if isinstance(median, int | float) else latest.seconds
