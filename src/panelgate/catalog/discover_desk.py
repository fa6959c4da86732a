"""Reading Discover from the store: the catalogs' entries and sightings, the endpoints, the bench and
the queue, made into rows (`discover`, `discover_reach`).

The endpoints' listings and the hubs' connections are the caller's to read
(a call to each provider or hub, which the catalog room does not make) and
hand in.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from panelgate.catalog.discover import Key, merge_offers
from panelgate.catalog.discover_reach import Row, Surroundings, by_key, rows_for
from panelgate.store import Database, EndpointRecord, ModelRecord


@dataclass(frozen=True)
class Discovery:
    rows: dict[Key, Row]
    left_out: dict[Key, str]
    endpoints: list[EndpointRecord]
    models: list[ModelRecord]
    """Every model, retired ones too (their aliases are taken)."""


async def discover(
    db: Database,
    now: datetime,
    listings: Mapping[str, Collection[str]],
    hub_connections: Mapping[str, Sequence[tuple[str, str]]] | None = None,
) -> Discovery:
    offers = merge_offers(await db.catalog.every_entry(), await db.catalog.first_seen())
    endpoints = await db.endpoints.list()
    models = await db.models.list(include_retired=True)
    waiting = [(item.endpoint, item.served_id) for item in await db.onboarding.waiting()]
    around = Surroundings(endpoints, models, waiting, listings, hub_connections or {})
    return Discovery(by_key(rows_for(offers.offers, around, now)), offers.left_out, endpoints, models)
