"""What the Quotas page shows, per connection: what each provider says is left and when it resets,
the limits set by hand with what was spent under them, what was sent, and which models are resting.

It reads what `/api/limits` and `/api/usage` read (the stated limits, the
hand-set rules, the usage ledger). A model is *resting* when its provider
told it to wait (a stated retry time) or a stated window is used up until
its reset: pacing holds every call to it until then.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from panelgate.core.rate_windows import per_window_words, period_end, period_of
from panelgate.http.services import Services
from panelgate.store import Database
from panelgate.store.records import EndpointRecord, ModelRecord, RateRule, StatedRow
from panelgate.store.usage_book import UsageTotal

TOKEN_MEASURES = ("tokens", "input_tokens", "output_tokens")
MEASURE_WORDS = {
    "requests": "requests",
    "tokens": "tokens",
    "input_tokens": "input tokens",
    "output_tokens": "output tokens",
}
MEASURE_ORDER = {measure: n for n, measure in enumerate(("requests", *TOKEN_MEASURES))}


@dataclass(frozen=True)
class Resting:
    """A model its provider told to wait: no call goes to it before `until`."""

    until: datetime
    why: str


@dataclass
class ModelQuota:
    """One model on a connection: what its provider says is left, and what was sent to it."""

    name: str
    """Its alias on the bench, or the served id when no model on the bench is served as it."""
    served_id: str
    retired: bool = False
    stated: list[StatedRow] = field(default_factory=list)
    day: UsageTotal | None = None
    month: UsageTotal | None = None
    resting: Resting | None = None

    def left(self, measures: Iterable[str]) -> list[StatedRow]:
        return [row for row in self.stated if row.measure in measures]

    @property
    def stated_at(self) -> datetime | None:
        return max((row.updated_at for row in self.stated), default=None)


@dataclass(frozen=True)
class RuleLine:
    """A limit set by hand, with what was spent under it in its current window."""

    rule: RateRule
    scope: str
    used: int
    resets_at: datetime

    @property
    def words(self) -> str:
        return f"{self.rule.most:,} {self.rule.measure} {per_window_words(self.rule.window)}"


@dataclass
class ConnectionQuota:
    endpoint: EndpointRecord
    models: list[ModelQuota] = field(default_factory=list)
    rules: list[RuleLine] = field(default_factory=list)

    def sent(self, which: str) -> tuple[int, int]:
        """Calls and tokens (in and out) sent through this connection: `day` or `month`."""
        totals = [total for m in self.models if (total := getattr(m, which)) is not None]
        return sum(t.calls for t in totals), sum(t.tokens_in + t.tokens_out for t in totals)

    @property
    def resting(self) -> list[ModelQuota]:
        return [m for m in self.models if m.resting is not None]


async def read_quotas(services: Services, now: datetime) -> list[ConnectionQuota]:
    """Every endpoint with its models' stated limits, usage and rest, and its hand-set rules."""
    db = services.db
    endpoints = await db.endpoints.list()
    models = await db.models.list(include_retired=True)
    month_start = now.replace(day=1, hour=0, minute=0, second=0, microsecond=0)
    day = await db.usage.totals(now - timedelta(days=1))
    month = await db.usage.totals(month_start)
    stated = await db.rates.stated()
    rules = await rule_lines(db, models, now)
    shown = []
    for endpoint in endpoints:
        found = _Gathered([m for m in models if m.endpoint == endpoint.name and not m.endpoint_gone])
        for row in stated:
            if row.endpoint == endpoint.name:
                found.by_served(row.served_id).stated.append(row)
        for which, totals in (("day", day), ("month", month)):
            for total in totals:
                if total.endpoint == endpoint.name:
                    setattr(found.by_alias(total.alias), which, total)
        for model in found.models:
            model.stated.sort(key=lambda row: MEASURE_ORDER.get(row.measure, 9))
            model.resting = resting_of(model.stated, now)
        connection_rules = [line for line in rules if line.rule.endpoint == endpoint.name]
        shown.append(ConnectionQuota(endpoint, found.shown(), connection_rules))
    return shown


class _Gathered:
    """A connection's models as they turn up: on the bench, in what its provider said, in the ledger."""

    def __init__(self, bench: Sequence[ModelRecord]) -> None:
        self._bench = bench
        self.models: list[ModelQuota] = []

    def _add(self, name: str, served_id: str, retired: bool = False) -> ModelQuota:
        model = ModelQuota(name, served_id, retired)
        self.models.append(model)
        return model

    def by_served(self, served_id: str) -> ModelQuota:
        for model in self.models:
            if model.served_id == served_id:
                return model
        named = next((m for m in self._bench if m.served_id == served_id and not m.retired), None)
        named = named or next((m for m in self._bench if m.served_id == served_id), None)
        if named is None:
            return self._add(served_id, served_id)
        return self._add(named.alias, served_id, named.retired)

    def by_alias(self, alias: str) -> ModelQuota:
        for model in self.models:
            if model.name == alias:
                return model
        named = next((m for m in self._bench if alias in (m.alias, *m.former_aliases)), None)
        if named is None:
            return self._add(alias, alias)
        return self.by_served(named.served_id)

    def shown(self) -> list[ModelQuota]:
        """Every model with something to show, then the rest of the bench, each by name."""
        for model in self._bench:
            if not model.retired and all(m.served_id != model.served_id for m in self.models):
                self._add(model.alias, model.served_id)
        return sorted(self.models, key=lambda m: (m.retired, m.name.lower()))


async def rule_lines(db: Database, models: Sequence[ModelRecord], now: datetime) -> list[RuleLine]:
    """Each hand-set rule with what was spent under it now, as `GET /api/limits` shows it."""
    rules = await db.rates.rules()
    periods = {rule.id: period_of(rule.window, now) for rule in rules}
    used = await db.rates.used(list(periods), sorted(set(periods.values())))
    aliases = {(m.endpoint, m.served_id): m.alias for m in models if not m.retired}
    lines = []
    for rule in rules:
        if rule.served_id is None:
            scope = "all its models together"
        else:
            alias = aliases.get((rule.endpoint, rule.served_id))
            scope = rule.served_id if alias in (None, rule.served_id) else f"{alias} ({rule.served_id})"
        spent = used.get((rule.id, periods[rule.id]), 0)
        lines.append(RuleLine(rule, scope, spent, period_end(rule.window, periods[rule.id])))
    return lines


def resting_of(stated: Sequence[StatedRow], now: datetime) -> Resting | None:
    """When the provider's word keeps calls off the model (the pacer holds them until the same time)."""
    waits = [row.retry_at for row in stated if row.retry_at is not None and row.retry_at > now]
    used_up = [
        (row.resets_at, row.measure)
        for row in stated
        if row.remaining is not None and row.remaining <= 0 and row.resets_at and row.resets_at > now
    ]
    until = max([*waits, *(at for at, _ in used_up)], default=None)
    if until is None:
        return None
    if until in waits:
        return Resting(until, "the provider asked to wait")
    measure = next(measure for at, measure in used_up if at == until)
    return Resting(until, f"its {MEASURE_WORDS.get(measure, measure)} are used up")
