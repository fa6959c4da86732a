"""Onboarding candidates: what each endpoint serves that the bench does not have yet.

Every endpoint's model listing is asked at once (one slow or broken
endpoint costs its own entry in `failures`, not the whole answer). A
served id is left out when a model on the bench serves it through that
endpoint, and when one was retired from there (Restore brings that one
back, with its record). What a person dismissed is kept apart, so it is
not offered again until they undo it; what is waiting in the onboarding
queue is offered but marked `queued`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass

from panelgate.store import Database, EndpointRecord
from panelgate.store.errors import NotFound
from panelgate.store.onboarding_book import Dismissal
from panelgate.upstream import UpstreamClient, UpstreamError

LISTING_TIMEOUT_S = 15.0


@dataclass(frozen=True)
class Candidate:
    endpoint: str
    served_id: str
    queued: bool
    """In the onboarding queue already, not finished."""
    dismissed: Dismissal | None = None


@dataclass(frozen=True)
class ListingFailure:
    endpoint: str
    why: str


@dataclass(frozen=True)
class Candidates:
    offered: list[Candidate]
    dismissed: list[Candidate]
    failures: list[ListingFailure]


async def served_ids(client: UpstreamClient, endpoint: EndpointRecord) -> list[str]:
    """The ids the endpoint's `/models` lists now, sorted; raises `UpstreamError` when it does not answer."""
    listed = await client.list_models(
        endpoint.base_url,
        key_name=endpoint.key_name,
        header_keys=endpoint.header_keys,
        timeout=LISTING_TIMEOUT_S,
        endpoint=endpoint.name,
    )
    return sorted({str(m["id"]) for m in listed if isinstance(m, dict) and m.get("id")})


async def find_candidates(db: Database, client: UpstreamClient, endpoint: str | None = None) -> Candidates:
    """Candidates on every endpoint, or on the one named."""
    endpoints = await db.endpoints.list()
    if endpoint is not None:
        endpoints = [e for e in endpoints if e.name == endpoint]
        if not endpoints:
            known = ", ".join(e.name for e in await db.endpoints.list()) or "none yet"
            raise NotFound(f"no endpoint named `{endpoint}`; endpoints: {known}", field="endpoint")
    listings = await asyncio.gather(*(_listing(client, e) for e in endpoints))
    taken = {
        (m.endpoint, m.served_id) for m in await db.models.list(include_retired=True) if not m.endpoint_gone
    }
    queued = {(item.endpoint, item.served_id) for item in await db.onboarding.waiting()}
    dismissed = await db.onboarding.dismissed()
    offered: list[Candidate] = []
    put_aside: list[Candidate] = []
    failures: list[ListingFailure] = []
    for where, listing in zip(endpoints, listings, strict=True):
        if isinstance(listing, ListingFailure):
            failures.append(listing)
            continue
        for served_id in listing:
            key = (where.name, served_id)
            if key in taken:
                continue
            candidate = Candidate(where.name, served_id, key in queued, dismissed.get(key))
            (offered if candidate.dismissed is None else put_aside).append(candidate)
    return Candidates(offered, put_aside, failures)


async def _listing(client: UpstreamClient, endpoint: EndpointRecord) -> Sequence[str] | ListingFailure:
    try:
        return await served_ids(client, endpoint)
    except UpstreamError as exc:
        return ListingFailure(endpoint.name, f"its model listing did not answer ({exc.kind}: {exc.message})")
