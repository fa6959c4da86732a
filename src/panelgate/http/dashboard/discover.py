"""What the Discover page and `GET /api/discover` show: the catalogs' models, how far each is from the
bench, and how the catalogs were last read.

Everything comes from the store (the catalogs as the last refresh read them,
fetched or from the cached copies), so the page works offline and never
calls a provider on load. Each endpoint's listing, and each hub's
connections, are read only when asked (`listings`), all at once, one that
does not answer costing only its own entry; adding a model always reads them
(the route it takes must list it, or be a hub connection to its provider).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from panelgate.catalog.discover import SHOWN_FACTS
from panelgate.catalog.discover_add import what_to_do
from panelgate.catalog.discover_desk import Discovery, discover
from panelgate.catalog.discover_pick import Filters, picked
from panelgate.catalog.discover_reach import Route, Row
from panelgate.engine.onboarding_candidates import served_ids
from panelgate.http.services import Services
from panelgate.hubs import ADAPTERS, HubError, admin_client, hub_for
from panelgate.store import EndpointRecord
from panelgate.store.catalog_book import SourceState
from panelgate.upstream import UpstreamError

if TYPE_CHECKING:
    import httpx

READING = {
    "fetched": "fetched",
    "cache": "read from the cached copy",
    "unavailable": "not available (no cached copy)",
    "": "never read",
}


@dataclass(frozen=True)
class ListingRead:
    endpoint: str
    read: bool
    why: str = ""


@dataclass(frozen=True)
class CatalogState:
    state: SourceState

    @property
    def reading(self) -> str:
        """How the rows from this catalog were read, in words."""
        return READING.get(self.state.origin, self.state.origin)


@dataclass(frozen=True)
class DiscoverView:
    rows: list[dict[str, Any]]
    """As `GET /api/discover` shows them (`row_shown`)."""
    total: int
    """Rows the filters kept, before the limit."""
    offered: int
    catalogs: list[CatalogState]
    listings: list[ListingRead]
    providers: list[str]

    @property
    def offline(self) -> bool:
        """No catalog was fetched at the last refresh: every row comes from a cached copy."""
        return not any(c.state.origin == "fetched" for c in self.catalogs) and any(
            c.state.origin == "cache" for c in self.catalogs
        )

    @property
    def never_read(self) -> bool:
        return all(c.state.refreshed_at is None for c in self.catalogs)


@dataclass(frozen=True)
class DiscoverQuery:
    """What a person asked the page or the API for (the query string both take)."""

    free: bool = False
    new: bool = False
    provider: str | None = None
    q: str | None = None
    all: bool = False
    """Paid models on providers not reached yet too."""
    listings: bool = False
    """Ask each endpoint's listing (a call to each provider)."""

    @property
    def filters(self) -> Filters:
        return Filters(self.free, self.new, self.provider or None, self.q or None, self.all)


def discover_query(
    free: bool = False,
    new: bool = False,
    provider: str | None = None,
    q: str | None = None,
    all: bool = False,
    listings: bool = False,
) -> DiscoverQuery:
    """The query string as a FastAPI dependency, so the page and the API read it alike."""
    return DiscoverQuery(free, new, provider, q, all, listings)


async def read_discover(services: Services, query: DiscoverQuery, limit: int | None = None) -> DiscoverView:
    """The rows the filters keep (see `catalog.discover_pick.Filters`), sorted, at most `limit`."""
    filters, listings = query.filters, query.listings
    found, reads = await discovery(services, listings=listings)
    rows = picked(found.rows.values(), filters)
    return DiscoverView(
        rows=[row_shown(row) for row in (rows if limit is None else rows[:limit])],
        total=len(rows),
        offered=len(found.rows),
        catalogs=[CatalogState(state) for state in await services.catalog.sources()],
        listings=reads,
        providers=sorted({key[0] for key in found.rows}, key=str.casefold),
    )


async def discovery(services: Services, *, listings: bool) -> tuple[Discovery, list[ListingRead]]:
    """Every row; the endpoints' listings and the hubs' connections are read when `listings`."""
    endpoints = await services.db.endpoints.list() if listings else []
    hubs = [e for e in endpoints if e.hub in ADAPTERS]
    async with admin_client() as http:
        read, hub_read = await asyncio.gather(
            asyncio.gather(*(_listing(services, e) for e in endpoints)),
            asyncio.gather(*(_connections(services, e, http) for e in hubs)),
        )
    lists = {e.name: ids for e, (ids, _) in zip(endpoints, read, strict=True) if ids is not None}
    reads = [ListingRead(e.name, ids is not None, why) for e, (ids, why) in zip(endpoints, read, strict=True)]
    ways = {e.name: found for e, (found, _) in zip(hubs, hub_read, strict=True) if found is not None}
    reads += [ListingRead(e.name, False, why) for e, (found, why) in zip(hubs, hub_read, strict=True) if why]
    return await discover(services.db, datetime.now(UTC), lists, ways), reads


async def _listing(services: Services, endpoint: EndpointRecord) -> tuple[Sequence[str] | None, str]:
    try:
        return await served_ids(services.upstream, endpoint), ""
    except UpstreamError as exc:
        return None, f"its model listing did not answer ({exc.kind}: {exc.message})"


async def _connections(
    services: Services, hub: EndpointRecord, http: httpx.AsyncClient
) -> tuple[list[tuple[str, str]] | None, str]:
    """The hub's connections as (name, where it points), or why its admin API did not say."""
    try:
        found = await hub_for(hub, services.keys, http, services.hub_refusals).connections()
    except HubError as exc:
        return None, f"its hub connections could not be read ({exc.message})"
    return [(c.name, c.detail) for c in found], ""


def row_shown(row: Row) -> dict[str, Any]:
    """A row as the API and the page show it: its marks, reach and routes, what to do, its facts."""
    offer = row.offer
    return {
        "provider": offer.provider,
        "model": offer.model,
        "name": offer.name,
        "free": offer.free,
        "new": row.new,
        "first_seen": None if offer.first_seen is None else offer.first_seen.isoformat(),
        "reach": row.reach,
        "routes": [_route(route) for route in row.routes],
        "on_bench": list(row.on_bench),
        "queued": row.queued,
        "addable": addable(row),
        "hint": what_to_do(row),
        "sources": list(offer.sources),
        **{fact: offer.facts.get(fact) for fact in SHOWN_FACTS},
        "api": offer.api,
        "base_url": offer.base_url,
    }


def addable(row: Row) -> bool:
    return bool(row.routes) and not row.on_bench and not row.queued


def _route(route: Route) -> dict[str, str | None]:
    return {
        "via": route.via,
        "endpoint": route.endpoint,
        "served_id": route.served_id,
        "connection": route.connection,
    }
