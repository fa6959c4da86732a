"""The facts a catalog knows of a model, the sources they come from, and their values.

Values are kept as plain JSON (a number, true/false, or an object for the
price and the limits) so they are stored, merged and shown without a
translation at each step. A price is US dollars per million tokens, input
and output apart, as models.dev states it; zero for both is a free model.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

FactName = Literal[
    "context_window", "max_output", "vision", "tools", "structured_output", "reasoning", "price", "limits"
]
FACTS: tuple[FactName, ...] = (
    "context_window", "max_output", "vision", "tools", "structured_output", "reasoning", "price", "limits",
)  # fmt: skip
Source = Literal["listing", "models.dev", "openrouter", "learned", "override"]
SOURCES: tuple[Source, ...] = ("listing", "models.dev", "openrouter", "learned", "override")
PUBLIC: tuple[Source, ...] = ("models.dev", "openrouter")
"""The public catalogs, in the order they are trusted."""


@dataclass(frozen=True)
class Price:
    """US dollars per million tokens."""

    input: float
    output: float

    @property
    def free(self) -> bool:
        return self.input == 0 and self.output == 0

    def cost(self, tokens_in: int, tokens_out: int) -> float:
        return (tokens_in * self.input + tokens_out * self.output) / 1_000_000

    def words(self) -> str:
        return f"${self.input:g} in / ${self.output:g} out per million tokens"


def price_of(value: Any) -> Price | None:
    """The price a fact's value states, or None when it states none."""
    if not isinstance(value, Mapping):
        return None
    given_in, given_out = _amount(value.get("input")), _amount(value.get("output"))
    return None if given_in is None or given_out is None else Price(given_in, given_out)


def _amount(value: Any) -> float | None:
    if isinstance(value, int | float) and not isinstance(value, bool) and value >= 0:
        return float(value)
    return None


@dataclass(frozen=True)
class Known:
    """What one source says of one fact of one model."""

    fact: FactName
    source: Source
    value: Any
    at: datetime | None = None
    evidence: str = ""
    """Where it was read: the catalog entry, the listing, the upstream's words, the person."""


def fact_named(name: str) -> FactName | None:
    """`name` as a fact name, or None when it names none (a row from a newer version, say)."""
    return next((fact for fact in FACTS if fact == name), None)


def source_named(name: str) -> Source | None:
    return next((source for source in SOURCES if source == name), None)


def word(fact: str, source: str, value: Any, at: datetime | None = None, evidence: str = "") -> Known | None:
    """A `Known`, when `fact` and `source` are names this version knows."""
    named, by = fact_named(fact), source_named(source)
    return None if named is None or by is None else Known(named, by, value, at, evidence)
