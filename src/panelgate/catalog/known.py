"""Gathering every source's word on the facts of some models, from the store, for the merge.

Per model: the person's overrides (its own columns for context window,
output limit, vision and tools; override rows for the rest), what its
endpoint listing said and what errors taught (fact rows), and the entry of
each public catalog that `matching` picks for it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from panelgate.catalog.facts import PUBLIC, FactName, Source, word
from panelgate.catalog.matching import Match, Where, best_match, host_of, match_key
from panelgate.catalog.merge import Merged, merge_facts
from panelgate.store import Database, EndpointRecord
from panelgate.store.catalog_book import CatalogEntry
from panelgate.store.fact_book import COLUMN_FACTS

OVERRIDE_EVIDENCE = "set on the model by a person"


@dataclass(frozen=True)
class Subject:
    """A model whose facts are wanted: where it is served, and the facts set on its own row."""

    model_id: int
    alias: str
    where: Where
    columns: Mapping[str, Any] = field(default_factory=dict)
    """Its `context_window`, `max_output`, `vision` and `tools` columns: the person's overrides."""


@dataclass(frozen=True)
class Findings:
    """What is known of one model: the merged facts, and the catalog entry each public catalog matched."""

    merged: dict[FactName, Merged]
    matches: dict[Source, Match]


def subject(
    model_id: int,
    alias: str,
    served_id: str,
    endpoint: str,
    endpoints: Mapping[str, EndpointRecord],
    columns: Mapping[str, Any],
) -> Subject:
    found = endpoints.get(endpoint)
    where = Where(served_id, endpoint, host_of(found.base_url) if found is not None else "")
    return Subject(
        model_id, alias, where, {k: columns[k] for k in COLUMN_FACTS if columns.get(k) is not None}
    )


async def gather(db: Database, subjects: Sequence[Subject]) -> dict[int, Findings]:
    """Every subject's merged facts, by model id."""
    if not subjects:
        return {}
    entries = await db.catalog.entries_for({match_key(s.where.served_id) for s in subjects})
    by_source: dict[str, list[CatalogEntry]] = {}
    for entry in entries:
        by_source.setdefault(entry.source, []).append(entry)
    rows = await db.facts.of_models([s.model_id for s in subjects])
    sources = await db.catalog.sources()
    found: dict[int, Findings] = {}
    for s in subjects:
        said = [word(fact, "override", value, None, OVERRIDE_EVIDENCE) for fact, value in s.columns.items()]
        said += [word(r.fact, r.source, r.value, r.at, r.evidence) for r in rows.get(s.model_id, [])]
        matches: dict[Source, Match] = {}
        for source in PUBLIC:
            match = best_match(s.where, by_source.get(source, ()))
            if match is None:
                continue
            matches[source] = match
            refreshed = sources[source].refreshed_at if source in sources else None
            said += [
                word(fact, source, value, refreshed, match.named()) for fact, value in match.facts().items()
            ]
        found[s.model_id] = Findings(merge_facts([w for w in said if w is not None]), matches)
    return found
