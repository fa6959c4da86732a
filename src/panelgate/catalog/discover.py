"""Discover's offers: every model the public catalogs list, merged per (provider, model).

models.dev lists a model per provider; OpenRouter's list is one provider's
(`openrouter`), which models.dev lists too, so the same pair can come from
both. Each pair becomes one `Offer`: a catalog's word on its own provider
first (OpenRouter's list on OpenRouter's models), then models.dev, then
OpenRouter, fact by fact. Only models that answer in text and are not
deprecated are offered; the others are kept apart with the reason, so a
person asking for one hears why it is not there.

An offer is *free* when its price is zero in and out, or its id is a
`:free` variant; *new* when it was first seen (`catalog_seen`) within the
last `NEW_WITHIN` of `now`, which the caller passes in. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from panelgate.catalog.facts import PUBLIC, price_of
from panelgate.store.catalog_book import CatalogEntry

NEW_WITHIN = timedelta(days=7)
SHOWN_FACTS = ("context_window", "max_output", "price", "vision", "tools", "reasoning")
"""The facts a row shows (limits differ by key and tier; they are the Quotas page's business)."""

Key = tuple[str, str]
"""(provider, model), as the catalogs spell them."""


@dataclass(frozen=True)
class Offer:
    provider: str
    model: str
    name: str
    sources: tuple[str, ...]
    facts: Mapping[str, Any]
    """The `SHOWN_FACTS` some catalog states, in our names (see `catalog.facts`)."""
    api: str | None
    """The endpoint API of ours that reaches the provider (chat, anthropic, gemini); None: not known."""
    base_url: str
    """The provider's API address, when a catalog states it (what an endpoint for it would use)."""
    api_host: str
    first_seen: datetime | None
    """None: in the catalogs' first read (the baseline), or never noted."""

    @property
    def key(self) -> Key:
        return (self.provider, self.model)

    @property
    def free(self) -> bool:
        price = price_of(self.facts.get("price"))
        return self.model.lower().endswith(":free") or (price is not None and price.free)

    def new(self, now: datetime) -> bool:
        return self.first_seen is not None and now - self.first_seen <= NEW_WITHIN


@dataclass(frozen=True)
class Offers:
    offers: list[Offer]
    left_out: dict[Key, str]
    """Pairs the catalogs list but Discover does not offer, and why."""


def merge_offers(entries: Iterable[CatalogEntry], first_seen: Mapping[Key, datetime | None]) -> Offers:
    by_key: dict[Key, list[CatalogEntry]] = {}
    for entry in entries:
        by_key.setdefault((entry.provider, entry.model), []).append(entry)
    offers: list[Offer] = []
    left_out: dict[Key, str] = {}
    for key, found in by_key.items():
        ordered = sorted(found, key=lambda e: (e.source != e.provider, _trust(e.source)))
        traits = [entry.traits for entry in ordered]
        why = _why_not(traits)
        if why:
            left_out[key] = why
            continue
        offers.append(
            Offer(
                provider=key[0],
                model=key[1],
                name=_first(t.get("name") for t in traits) or key[1],
                sources=tuple(entry.source for entry in ordered),
                facts={
                    fact: value
                    for fact in SHOWN_FACTS
                    if (value := _first(entry.facts.get(fact) for entry in ordered)) is not None
                },
                api=_first(t.get("api") for t in traits),
                base_url=_first(t.get("base_url") for t in traits) or "",
                api_host=_first(entry.api_host for entry in ordered) or "",
                first_seen=first_seen.get(key),
            )
        )
    return Offers(offers, left_out)


def _why_not(traits: Sequence[Mapping[str, Any]]) -> str:
    if any(t.get("deprecated") is True for t in traits):
        return "the catalogs list it as deprecated"
    said = _first(t.get("text_out") for t in traits)
    if said is False:
        return "it does not answer in text (an image, audio or embedding model)"
    return ""


def _trust(source: str) -> int:
    return next((n for n, known in enumerate(PUBLIC) if known == source), len(PUBLIC))


def _first(values: Iterable[Any]) -> Any:
    return next((value for value in values if value is not None and value != ""), None)
