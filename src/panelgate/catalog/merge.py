"""The merge: which source's word a model's fact takes.

    override  >  learned (only when tighter)  >  listing  >  models.dev  >  openrouter

The endpoint's own listing describes the very model the gateway calls, so it
beats the public catalogs, which describe a model in general (and models.dev
beats OpenRouter's list: it is per provider). What an upstream's refusal
taught ("maximum context length is 8192") is evidence about this endpoint
today, so it replaces the catalogs' value, but only downwards: a refusal
proves a ceiling, never room. The person's override wins over everything;
what it replaced is kept so the dashboard can show it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from panelgate.catalog.facts import FACTS, FactName, Known, Source

CATALOG_ORDER: tuple[Source, ...] = ("listing", "models.dev", "openrouter")
TIGHTER_ONLY: frozenset[FactName] = frozenset({"context_window", "max_output"})
"""Facts an error can teach, and only ever lower."""
SHOWN_ORDER: tuple[Source, ...] = ("override", "learned", *CATALOG_ORDER)


@dataclass(frozen=True)
class Merged:
    """One fact of one model after the merge."""

    fact: FactName
    chosen: Known | None
    """The word that counts (None: no source knows it)."""
    overridden: Known | None = None
    """What the override replaced: the merge's answer without it."""
    known: tuple[Known, ...] = ()
    """Every source's word, override first, then as trusted."""

    @property
    def value(self) -> object:
        return None if self.chosen is None else self.chosen.value


def merge_fact(fact: FactName, known: Iterable[Known]) -> Merged:
    """The merged `fact` from what each source says (one word per source; later ones are ignored)."""
    by_source: dict[Source, Known] = {}
    for word in known:
        if word.fact == fact and word.value is not None:
            by_source.setdefault(word.source, word)
    base = next((by_source[s] for s in CATALOG_ORDER if s in by_source), None)
    learned = by_source.get("learned")
    if fact in TIGHTER_ONLY and learned is not None and _lower(learned, base):
        base = learned
    listed = tuple(by_source[s] for s in SHOWN_ORDER if s in by_source)
    override = by_source.get("override")
    if override is not None:
        return Merged(fact, override, base, listed)
    return Merged(fact, base, None, listed)


def merge_facts(known: Sequence[Known]) -> dict[FactName, Merged]:
    """Every fact of one model, merged."""
    return {fact: merge_fact(fact, known) for fact in FACTS}


def _lower(learned: Known, base: Known | None) -> bool:
    if not _number(learned.value):
        return False
    return base is None or not _number(base.value) or learned.value < base.value


def _number(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
