"""A catalog refresh: read the public catalogs and the endpoints' listings, then watch prices.

One refresh, whoever asked (the `catalog-refresh` job or a person): each
public catalog is fetched or read from its cached copy and replaces its old
entries; each chat endpoint with models on the bench is asked for its
`/models` listing, and what it states of each of those models replaces what
it stated before (an endpoint that does not answer keeps its old facts);
then every model's merged price is compared with the one before, and a free
model now priced is held (`price_watch`).

Each catalog read also notes the (provider, model) pairs it lists for the
first time, for Discover's "new" mark: a catalog's first read (or the first
refresh since sightings were kept) is the baseline, noted without a date, so
nothing on day one is "new"; later first sightings are dated now.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from panelgate.catalog.facts import PUBLIC, Source
from panelgate.catalog.feeds import DEFAULT_URLS, read_feed
from panelgate.catalog.known import Subject, gather, subject
from panelgate.catalog.merge import Merged
from panelgate.catalog.price_watch import sync_alerts, turned_paid
from panelgate.catalog.reading import listing_facts
from panelgate.store import Database, EndpointRecord
from panelgate.store.catalog_book import SourceState

ListModels = Callable[[EndpointRecord], Awaitable[list[dict[str, Any]]]]
"""What an endpoint's `/models` lists (raises when it cannot be read)."""


@dataclass(frozen=True)
class ListingRead:
    endpoint: str
    read: bool
    detail: str


@dataclass(frozen=True)
class RefreshReport:
    sources: list[SourceState]
    listings: list[ListingRead]
    held: list[str] = field(default_factory=list)
    """Aliases the price watch held in this refresh."""

    def summary(self) -> str:
        sources = ", ".join(f"{s.source} {s.origin} ({s.entries:,})" for s in self.sources)
        read = sum(1 for listing in self.listings if listing.read)
        held = f"; held (turned paid): {', '.join(self.held)}" if self.held else ""
        return f"catalogs: {sources}; listings read: {read} of {len(self.listings)}{held}"


async def refresh(
    db: Database, cache_dir: Path, list_models: ListModels | None, now: datetime
) -> RefreshReport:
    subjects, endpoints = await _subjects(db)
    before = _prices(await gather(db, subjects))
    fresh_start = not await db.catalog.any_seen()
    sources = [await _read_source(db, source, cache_dir, now, fresh_start) for source in PUBLIC]
    listings = [] if list_models is None else await _read_listings(db, subjects, endpoints, list_models, now)
    after = _prices(await gather(db, subjects))
    held_ids = await db.facts.hold(turned_paid(before, after), now)
    await sync_alerts(db, now)
    aliases = {s.model_id: s.alias for s in subjects}
    return RefreshReport(sources, listings, sorted(aliases[i] for i in held_ids))


async def _subjects(db: Database) -> tuple[list[Subject], dict[str, EndpointRecord]]:
    endpoints = {e.name: e for e in await db.endpoints.list()}
    models = await db.models.list()
    return [subject(m.id, m.alias, m.served_id, m.endpoint, endpoints, m.public()) for m in models], endpoints


def _prices(found: dict[int, Any]) -> dict[int, Merged]:
    return {model_id: findings.merged["price"] for model_id, findings in found.items()}


async def _read_source(
    db: Database, source: Source, cache_dir: Path, now: datetime, fresh_start: bool
) -> SourceState:
    known = (await db.catalog.sources()).get(source)
    default = DEFAULT_URLS[source]
    url = default if known is None or known.url is None else known.url
    feed = await read_feed(source, url, cache_dir)
    state = SourceState(
        source, url, now, feed.origin, feed.detail, len(feed.entries) if feed.entries is not None else 0
    )
    if feed.entries is None and known is not None:
        state = SourceState(source, url, now, feed.origin, feed.detail, known.entries)
    await db.catalog.replace(state, feed.entries, default)
    if feed.entries is not None:
        baseline = fresh_start or known is None or known.entries == 0
        pairs = {(entry.provider, entry.model) for entry in feed.entries}
        await db.catalog.note_seen(pairs, None if baseline else now)
    return state


async def _read_listings(
    db: Database,
    subjects: Sequence[Subject],
    endpoints: dict[str, EndpointRecord],
    list_models: ListModels,
    now: datetime,
) -> list[ListingRead]:
    served: dict[str, list[Subject]] = {}
    for s in subjects:
        served.setdefault(s.where.endpoint, []).append(s)
    reads = []
    for name, on_it in sorted(served.items()):
        endpoint = endpoints.get(name)
        if endpoint is None or endpoint.api != "chat":
            continue
        try:
            listing = await list_models(endpoint)
        except Exception as exc:  # an endpoint that cannot list keeps the facts it stated before
            reads.append(ListingRead(name, False, str(exc)[:300] or type(exc).__name__))
            continue
        by_id = {str(entry.get("id", "")): entry for entry in listing}
        stated = {
            s.model_id: listing_facts(by_id[s.where.served_id]) for s in on_it if s.where.served_id in by_id
        }
        await db.facts.replace_listing(stated, f"listed by {name}'s /models", now)
        reads.append(ListingRead(name, True, f"{len(stated)} of {len(on_it)} bench models listed"))
    return reads
