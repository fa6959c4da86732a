"""`Catalog`: what the admin API, the scheduler and the app ask of the catalog room.

Made once in the app's lifespan: `attach` has the store's bench view merge
facts into every roster it reads and has the usage ledger tell the learner
of every refusal. The rest answers people: a model's facts with their
sources, their overrides, allowing a paid model, the catalogs' addresses,
a refresh, and the prices costs are counted at.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from panelgate.catalog.facts import PUBLIC, FactName, Price, Source, price_of
from panelgate.catalog.feeds import DEFAULT_URLS
from panelgate.catalog.known import Findings, gather, subject
from panelgate.catalog.learner import Learner
from panelgate.catalog.matching import Match
from panelgate.catalog.merge import Merged
from panelgate.catalog.price_watch import sync_alerts
from panelgate.catalog.refresh import ListModels, RefreshReport, refresh
from panelgate.catalog.roster import with_facts
from panelgate.core.errors import NotFound
from panelgate.core.types import ModelInfo
from panelgate.store import Database, EndpointRecord, ModelRecord
from panelgate.store.catalog_book import SourceState
from panelgate.store.fact_book import HoldRecord

Where = tuple[str, str]
"""(endpoint, served id)."""


def _utcnow() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class ModelFacts:
    """One model's facts as the admin API shows them."""

    model: ModelRecord
    merged: dict[FactName, Merged]
    matches: dict[Source, Match]
    hold: HoldRecord | None

    @property
    def price(self) -> Price | None:
        return price_of(self.merged["price"].value)


class Catalog:
    def __init__(
        self,
        db: Database,
        cache_dir: Path,
        list_models: ListModels | None = None,
        *,
        now: Callable[[], datetime] = _utcnow,
    ) -> None:
        """`cache_dir` keeps the public catalogs' last good copies; `list_models` reads an endpoint's
        listing (None: refreshes read no listing)."""
        self._db = db
        self._cache_dir = cache_dir
        self._list_models = list_models
        self._now = now
        self.learner = Learner(db.facts, now)

    def attach(self) -> None:
        """Merge facts into every roster the bench view reads; learn from every refusal the ledger hears."""
        self._db.bench.merge_facts_with(self._roster)
        self._db.usage.listen_for_refusals(self.learner.hear)

    async def _roster(
        self, roster: dict[str, ModelInfo], endpoints: dict[str, EndpointRecord]
    ) -> dict[str, ModelInfo]:
        return await with_facts(self._db, roster, endpoints)

    async def facts_of(self, alias: str) -> ModelFacts:
        await self.learner.settled()
        model = await self._db.models.get(alias)
        if model is None:
            raise NotFound(f"no model `{alias}` on the bench or among retired models", param="alias")
        found = await self._findings([model])
        return ModelFacts(
            model,
            found[model.id].merged,
            found[model.id].matches,
            (await self._db.facts.holds()).get(model.id),
        )

    async def set_overrides(self, alias: str, changes: Mapping[str, Any], actor: str) -> ModelFacts:
        await self._db.facts.set_overrides(alias, changes, actor, self._now())
        return await self.facts_of(alias)

    async def allow_paid(self, alias: str, actor: str) -> ModelFacts:
        hold = await self._db.facts.allow_paid(alias, actor, self._now())
        await sync_alerts(self._db, self._now())
        facts = await self.facts_of(alias)
        return ModelFacts(facts.model, facts.merged, facts.matches, hold)

    async def refresh(self) -> RefreshReport:
        return await refresh(self._db, self._cache_dir, self._list_models, self._now())

    async def sources(self) -> list[SourceState]:
        """Each public catalog, its address (the default when none was set) and its last refresh."""
        known = await self._db.catalog.sources()
        shown = []
        for source in PUBLIC:
            state = known.get(source, SourceState(source, None))
            url = DEFAULT_URLS[source] if state.url is None else state.url
            shown.append(
                SourceState(source, url, state.refreshed_at, state.origin, state.detail, state.entries)
            )
        return shown

    async def set_source_url(self, source: Source, url: str, actor: str) -> None:
        await self._db.catalog.set_url(source, url, actor)

    async def prices(self) -> dict[Where, Price | None]:
        """The merged price of every model, retired ones too, by where it is served (a model on the
        bench wins a place it shares with retired ones)."""
        models = await self._db.models.list(include_retired=True)
        found = await self._findings(models)
        prices: dict[Where, Price | None] = {}
        for model in sorted(models, key=lambda m: not m.retired):  # the bench's model last, so it wins
            prices[(model.endpoint, model.served_id)] = price_of(found[model.id].merged["price"].value)
        return prices

    async def settled(self) -> None:
        await self.learner.settled()

    async def _findings(self, models: list[ModelRecord]) -> dict[int, Findings]:
        endpoints = {e.name: e for e in await self._db.endpoints.list()}
        return await gather(
            self._db, [subject(m.id, m.alias, m.served_id, m.endpoint, endpoints, m.public()) for m in models]
        )
