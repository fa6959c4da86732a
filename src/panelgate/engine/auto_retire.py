"""Auto-retire: act on the rules of `core.health`, and say what needs a person.

One run (the daily job, or a person's "run now"):

1. ask each endpoint that speaks OpenAI chat for its model list, and note
   which models on the bench it left out (a list that cannot be read
   proves nothing and changes nothing);
2. read every model's evidence and plan (`HealthDesk.read_bench`);
3. send one confirming call to each model whose newest failure said it is
   gone, closed or unpaid, unless its whole connection is down, and read
   the evidence again;
4. retire what the rules say to retire, as `auto` through the store's own
   retire (the model leaves its collections, every record stays, Restore
   undoes it);
5. sync the action-needed list: a connection whose models are all down, a
   key refused, payment asked, a model retired automatically this week.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from panelgate.engine.health import BenchReading, HealthDesk
from panelgate.store import Database, ModelRecord, StoreError
from panelgate.store.alerts import RaisedAlert
from panelgate.upstream import UpstreamClient, UpstreamError

RETIRED_BY = "auto"
SHOWN_FOR = timedelta(days=7)
"""How long a model retired automatically stays on the action-needed list (with its Restore)."""
ALERT_KINDS = ("connection", "signin", "paywalled", "retired")
LISTING_TIMEOUT_S = 20.0


def utcnow() -> datetime:
    return datetime.now(UTC)


@dataclass
class RetireReport:
    listed: list[str] = field(default_factory=list)
    confirmed: list[str] = field(default_factory=list)
    retired: list[tuple[str, str]] = field(default_factory=list)
    held: dict[str, tuple[str, ...]] = field(default_factory=dict)
    counting_down: list[str] = field(default_factory=list)

    def summary(self) -> str:
        parts = [f"checked the model lists of {len(self.listed)} endpoint(s)"]
        if self.confirmed:
            parts.append(f"confirmed failures with one more call to {', '.join(self.confirmed)}")
        parts.append(
            "retired " + ", ".join(f"{alias} ({why})" for alias, why in self.retired)
            if self.retired
            else "retired nothing"
        )
        if self.held:
            parts.append(f"held (whole connection down): {', '.join(sorted(self.held))}")
        if self.counting_down:
            parts.append(f"counting down: {', '.join(self.counting_down)}")
        return "; ".join(parts)


class AutoRetirer:
    def __init__(
        self,
        db: Database,
        health: HealthDesk,
        client: UpstreamClient,
        *,
        now: Callable[[], datetime] = utcnow,
    ) -> None:
        self._db = db
        self._health = health
        self._client = client
        self._now = now

    async def run(self) -> RetireReport:
        report = RetireReport()
        report.listed = await self._check_listings()
        reading = await self._health.read_bench()
        doubtful = [m for m in reading.models if reading.plans[m.alias].action == "confirm"]
        if doubtful:
            await self._health.each(
                doubtful, lambda m: self._health.probe(m, caller=RETIRED_BY, probe="confirm")
            )
            report.confirmed = [m.alias for m in doubtful]
            reading = await self._health.read_bench()
        for model in reading.models:
            plan = reading.plans[model.alias]
            if plan.action == "retire" and await self._retire(model, plan.why):
                report.retired.append((model.alias, plan.why))
            elif plan.action == "countdown":
                report.counting_down.append(model.alias)
        report.held = reading.down_connections
        await self._db.alerts.sync(await self._alerts(reading), ALERT_KINDS, self._now())
        return report

    async def _retire(self, model: ModelRecord, why: str) -> bool:
        try:
            await self._db.models.retire(model.alias, f"retired automatically: {why}", actor=RETIRED_BY)
        except StoreError:  # renamed or retired by a person meanwhile: theirs is the newer word
            return False
        return True

    async def _check_listings(self) -> list[str]:
        """Note which bench models each chat endpoint still lists; the endpoints whose list was read."""
        bench = await self._db.bench.snapshot()
        served: dict[str, list[str]] = {}
        for model in await self._db.models.list():
            served.setdefault(model.endpoint, []).append(model.served_id)
        read = []
        for name, ids in sorted(served.items()):
            endpoint = bench.endpoints.get(name)
            if endpoint is None or endpoint.api != "chat":
                continue
            try:
                listing = await self._client.list_models(
                    endpoint.base_url,
                    key_name=endpoint.key_name,
                    header_keys=endpoint.header_keys,
                    endpoint=name,
                    timeout=LISTING_TIMEOUT_S,
                )
            except UpstreamError:
                continue
            listed = {str(entry.get("id", "")) for entry in listing}
            await self._db.health.note_listing(name, ids, listed, self._now())
            read.append(name)
        return read

    async def _alerts(self, reading: BenchReading) -> list[RaisedAlert]:
        raised = [
            _connection_alert(endpoint, aliases, reading)
            for endpoint, aliases in reading.down_connections.items()
        ]
        refused_keys: dict[str, list[str]] = {}
        for model in reading.models:
            latest = reading.evidence[model.alias].latest
            failure = None if latest is None else latest.failure
            if failure == "signin":
                refused_keys.setdefault(model.endpoint, []).append(model.alias)
            elif failure == "paywalled" and reading.plans[model.alias].action != "retire":
                raised.append(
                    RaisedAlert(
                        f"paywalled:{model.alias}",
                        "paywalled",
                        model.alias,
                        f"`{model.endpoint}` asks for payment to call `{model.alias}`: add credit to the "
                        "account, or retire the model",
                    )
                )
        for endpoint, aliases in refused_keys.items():
            raised.append(
                RaisedAlert(
                    f"signin:{endpoint}",
                    "signin",
                    endpoint,
                    f"`{endpoint}` refuses its key (calls to {', '.join(sorted(aliases))}): sign in again "
                    "or set a new key for the endpoint",
                )
            )
        raised += await self._retired_alerts()
        return raised

    async def _retired_alerts(self) -> list[RaisedAlert]:
        since = self._now() - SHOWN_FOR
        return [
            RaisedAlert(
                f"retired:{m.id}:{m.retired_at:%Y%m%dT%H%M%S}",
                "retired",
                m.alias,
                f"`{m.alias}` was {m.retired_why or 'retired automatically'}; Restore puts it back into "
                "the collections it left",
                restore=m.alias,
            )
            for m in await self._db.models.list(include_retired=True)
            if m.retired and m.retired_by == RETIRED_BY and m.retired_at is not None and m.retired_at >= since
        ]


def _connection_alert(endpoint: str, aliases: Sequence[str], reading: BenchReading) -> RaisedAlert:
    failing = []
    for alias in aliases:
        latest = reading.evidence[alias].latest
        failing.append(f"{alias}: {latest.failure if latest and latest.failure else 'not listed'}")
    return RaisedAlert(
        f"connection:{endpoint}",
        "connection",
        endpoint,
        f"every model on `{endpoint}` is down at once ({'; '.join(failing)}), so none was retired: "
        "check the endpoint's address, key and account",
    )
