"""How far each offer is from the bench: on it, connected, easy to add, or other; and the routes to it.

A *route* is a way onto the bench: an endpoint that serves the offer's
provider (its name is the provider's id, or its base URL is the provider's
API server), or any endpoint (a hub, an aggregator) whose listing names the
model, as `model` or `provider/model`. When an endpoint's listing was read
and leaves the model out, that endpoint is no route for it (onboarding
would refuse it). Listings are read only when asked (each is a call to the
provider), so without them a provider's own endpoint is trusted to serve
its models. A route says what it goes through (`via`): a hub endpoint whose
listing leaves the model out is still a route when one of the hub's
connections points at the provider (`via` hub, with that connection): its
adapter can tell the hub to serve the model there, and then it is onboarded
like any other.

A model on the bench serves an offer when its endpoint is a route or the
provider's own and its served id is the model's, or on any endpoint when its
served id names the provider too (`groq/llama-3.3-70b-versatile` on a hub).

Reach, best first: *on bench* (a model on the bench serves it), *connected*
(a route exists), *easy to add* (the provider speaks an API the gateway
calls: add an endpoint with a key), *other*. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Literal
from urllib.parse import urlsplit

from panelgate.catalog.discover import Key, Offer
from panelgate.catalog.matching import KNOWN_HOSTS
from panelgate.store import EndpointRecord, ModelRecord

Reach = Literal["on bench", "connected", "easy to add", "other"]
REACHES: tuple[Reach, ...] = ("on bench", "connected", "easy to add", "other")


@dataclass(frozen=True)
class Route:
    via: Literal["endpoint", "hub"]
    endpoint: str
    served_id: str
    """The id the endpoint serves the model as (through a hub: the provider's, until the hub says)."""
    connection: str | None = None
    """Through a hub: the connection its adapter adds the model to."""


@dataclass(frozen=True)
class Row:
    offer: Offer
    new: bool
    reach: Reach
    routes: tuple[Route, ...]
    on_bench: tuple[str, ...]
    """Aliases of the models on the bench that serve it."""
    queued: bool
    """Waiting in the onboarding queue through one of its routes."""
    unlisted: tuple[str, ...] = ()
    """The provider's own endpoints whose listing leaves the model out."""


@dataclass(frozen=True)
class Surroundings:
    """What the gateway has: endpoints, the bench, the queue, and the listings that were read."""

    endpoints: list[EndpointRecord]
    models: list[ModelRecord]
    waiting: Collection[tuple[str, str]]
    """(endpoint, served id) of every item waiting in the onboarding queue."""
    listings: Mapping[str, Collection[str]]
    """Each endpoint whose listing was read: the ids it lists."""
    hub_connections: Mapping[str, Sequence[tuple[str, str]]] = field(default_factory=dict)
    """Each hub endpoint whose connections were read: (name, where it points) of each."""


def rows_for(offers: Iterable[Offer], around: Surroundings, now: datetime) -> list[Row]:
    listed = {name: {i.lower(): i for i in ids} for name, ids in around.listings.items()}
    bench: dict[tuple[str, str], list[str]] = {}
    for m in around.models:
        if not m.retired:
            bench.setdefault((m.endpoint, m.served_id.lower()), []).append(m.alias)
    waiting = {(endpoint, served.lower()) for endpoint, served in around.waiting}
    servers = {e.name: _server(e.base_url) for e in around.endpoints}
    names = sorted(servers)
    owners: dict[tuple[str, str, str], frozenset[str]] = {}  # the same for every model of a provider
    through: dict[tuple[str, str, str], tuple[tuple[str, str], ...]] = {}
    rows = []
    for offer in offers:
        provider = (offer.provider, offer.base_url, offer.api_host)
        if provider not in owners:
            owners[provider] = frozenset(n for n, at in servers.items() if _serves_provider(n, at, offer))
            through[provider] = _hub_ways(around.hub_connections, offer)
        row = _row(offer, names, owners[provider], bench, listed, waiting, now)
        rows.append(_with_hubs(row, through[provider]))
    return rows


def _hub_ways(hubs: Mapping[str, Sequence[tuple[str, str]]], offer: Offer) -> tuple[tuple[str, str], ...]:
    """(hub endpoint, connection) of every hub connection that points at the offer's provider."""
    return tuple(
        (hub, name)
        for hub in sorted(hubs)
        for name, where in hubs[hub]
        if _serves_provider(name, _server(where) if "://" in where else ("", None), offer)
    )


def _with_hubs(row: Row, ways: tuple[tuple[str, str], ...]) -> Row:
    """The row with a route through each hub connection to its provider, when nothing else holds it.

    A hub already listing the model is an endpoint route; one on the bench or
    in the queue needs no other way in.
    """
    taken = {route.endpoint for route in row.routes}
    extra = tuple(
        Route("hub", hub, row.offer.model, connection) for hub, connection in ways if hub not in taken
    )
    if not extra or row.on_bench or row.queued:
        return row
    return replace(row, routes=(*row.routes, *extra), reach="connected")


def _serves_provider(name: str, server: tuple[str, int | None], offer: Offer) -> bool:
    """The endpoint is the provider's own: named as it, or on its API server."""
    if name.lower() == offer.provider.lower():
        return True
    if not server[0]:
        return False
    if offer.base_url:
        return server == _server(offer.base_url)
    return server[0] == offer.api_host.lower() or KNOWN_HOSTS.get(server[0]) == offer.provider.lower()


def _row(
    offer: Offer,
    endpoints: list[str],
    own: frozenset[str],
    bench: Mapping[tuple[str, str], list[str]],
    listed: Mapping[str, Mapping[str, str]],
    waiting: set[tuple[str, str]],
    now: datetime,
) -> Row:
    spellings = {offer.model.lower(), f"{offer.provider}/{offer.model}".lower()}
    routes, unlisted = [], []
    for name in sorted(endpoints, key=lambda n: n not in own):  # the provider's own first, then by name
        listing = listed.get(name)
        served = _listed_as(listing, spellings) if listing is not None else None
        if served is not None:
            routes.append(Route("endpoint", name, served))
        elif name in own and listing is None:
            routes.append(Route("endpoint", name, offer.model))
        elif name in own:
            unlisted.append(name)
    places = {(r.endpoint, r.served_id.lower()) for r in routes} | {
        (name, spelling) for name in own for spelling in spellings
    }
    prefixed = f"{offer.provider}/{offer.model}".lower()  # names the provider: on any endpoint
    places |= {(name, prefixed) for name in endpoints}
    on_bench = tuple(sorted(alias for place in places for alias in bench.get(place, ())))
    reach: Reach = (
        "on bench" if on_bench else "connected" if routes else "easy to add" if offer.api else "other"
    )
    return Row(
        offer=offer,
        new=offer.new(now),
        reach=reach,
        routes=tuple(routes),
        on_bench=on_bench,
        queued=bool(places & waiting),
        unlisted=tuple(unlisted),
    )


def _listed_as(listing: Mapping[str, str], spellings: set[str]) -> str | None:
    return next((listing[s] for s in sorted(spellings, key=len) if s in listing), None)


def _server(url: str) -> tuple[str, int | None]:
    """(host, port) of an address; the port only when the address states one."""
    try:
        parts = urlsplit(url)
        return ((parts.hostname or "").lower(), parts.port)
    except ValueError:
        return ("", None)


def reach_rank(row: Row) -> int:
    return REACHES.index(row.reach)


def by_key(rows: Iterable[Row]) -> dict[Key, Row]:
    return {row.offer.key: row for row in rows}
