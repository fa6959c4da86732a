"""Which Discover rows a person sees, and in what order.

Sorted free first, new first, then by reach (on bench, connected, easy to
add, other), then by name. With no filter, a person sees what they could use
today or for nothing: every free model, and paid ones on providers they
reach already; `everything` shows the rest too. Naming a provider, typing a
search or asking for new models is a question about the whole catalog, so
those look at every row. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from panelgate.catalog.discover_reach import Row, reach_rank

WITHIN_REACH = ("on bench", "connected")


@dataclass(frozen=True)
class Filters:
    free: bool = False
    new: bool = False
    provider: str | None = None
    text: str | None = None
    """Words that must all appear in the provider, the model id or its name (any case)."""
    everything: bool = False
    """Paid models on providers not reached yet too."""

    @property
    def whole_catalog(self) -> bool:
        return self.everything or self.new or bool(self.provider) or bool(self.text)


def picked(rows: Iterable[Row], filters: Filters) -> list[Row]:
    words = (filters.text or "").casefold().split()
    provider = (filters.provider or "").casefold()
    kept = [
        row
        for row in rows
        if (not filters.free or row.offer.free)
        and (not filters.new or row.new)
        and (not provider or row.offer.provider.casefold() == provider)
        and all(word in _haystack(row) for word in words)
        and (filters.whole_catalog or row.offer.free or row.reach in WITHIN_REACH)
    ]
    return sorted(kept, key=rank)


def rank(row: Row) -> tuple[bool, bool, int, str, str, str]:
    offer = row.offer
    return (not offer.free, not row.new, reach_rank(row), offer.name.casefold(), offer.provider, offer.model)


def _haystack(row: Row) -> str:
    return f"{row.offer.provider} {row.offer.model} {row.offer.name}".casefold()
