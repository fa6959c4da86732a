"""The record ranked: per shape, each model's estimated usefulness with its interval and pairwise strength.

What `GET /bench/record` adds to the verdict tallies, and what `panelgate
record` prints. A model's standing on a shape is its Beta posterior
(`core/evidence.py`): the mean, the 90 % credible interval, the verdicts
behind it and the review-suite results (bench-wide, half a verdict each);
beside it, when any "better than" verdict was given on that shape, its
Bradley–Terry strength (`core/bradley_terry.py`: log-strength, 0 = an
average model, with its 90 % interval and its chance to beat an average
model).

A record narrowed to one collection keeps the whole bench's prior. The
prior's hyperparameters (the bench's mean, how far families, models and
shapes spread) are fitted from every verdict on the bench, and only the
pooling and each cell's own evidence come from the collection's verdicts.
A collection holds a handful of verdicts, too few to say how far models
spread; fitted from those alone, the prior would swing from flat to rigid
as verdicts arrive. Unnarrowed, the book is the one seating reads, so the
record shows what the explorer rule and the merger see.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from panelgate.core.bradley_terry import BradleyTerryFit, fit_bradley_terry
from panelgate.core.evidence import Counts, EvidenceBook
from panelgate.core.evidence_prior import fit_prior
from panelgate.core.family import family
from panelgate.core.types import SHAPES
from panelgate.store import Database

Pairs = Mapping[tuple[str, str, str], int]
"""(winner alias, loser alias, shape) → how many current verdicts say the winner's answer was better."""

_DIGITS = 4


def _book(
    counts: Mapping[tuple[str, str], Counts],
    bench_counts: Mapping[tuple[str, str], Counts],
    families: Mapping[str, str],
) -> EvidenceBook:
    """The book over `counts`, with the prior fitted from `bench_counts` (see the module's docstring)."""
    cells = {key: (cell.successes, cell.trials) for key, cell in bench_counts.items()}
    return EvidenceBook(counts, families, fit_prior(cells, families))


def _strength(fit: BradleyTerryFit | None, alias: str) -> dict[str, float] | None:
    if fit is None or alias not in fit.names:
        return None
    strength = fit.strength(alias)
    low, high = strength.interval
    return {
        "value": round(strength.log_strength, _DIGITS),
        "low": round(low, _DIGITS),
        "high": round(high, _DIGITS),
        "winChance": round(strength.win_chance, _DIGITS),
    }


def _shape_order(shapes: set[str]) -> list[str]:
    """The shapes in the product's order (`core.types.SHAPES`), any other after them by name."""
    known = [shape for shape in SHAPES if shape in shapes]
    return known + sorted(shapes - set(known))


def rank_shape(book: EvidenceBook, shape: str, aliases: set[str], pairs: Pairs) -> list[dict[str, Any]]:
    """The models of `aliases` on `shape`, best posterior mean first (then more verdicts, then by alias)."""
    wins = {(winner, loser): n for (winner, loser, on), n in pairs.items() if on == shape}
    fit = fit_bradley_terry(wins) if wins else None
    rows = []
    for alias in sorted(
        aliases, key=lambda a: (-book.posterior(a, shape).mean, -book.counts(a, shape).judged, a)
    ):
        posterior = book.posterior(alias, shape)
        low, high = posterior.interval()
        cell = book.counts(alias, shape)
        rows.append(
            {
                "alias": alias,
                "mean": round(posterior.mean, _DIGITS),
                "low": round(low, _DIGITS),
                "high": round(high, _DIGITS),
                "judged": posterior.judged,
                "suite": cell.suite_right + cell.suite_wrong,
                "strength": _strength(fit, alias),
            }
        )
    return rows


def rank(
    counts: Mapping[tuple[str, str], Counts],
    bench_counts: Mapping[tuple[str, str], Counts],
    pairs: Pairs,
    families: Mapping[str, str],
    shape: str | None = None,
) -> dict[str, list[dict[str, Any]]]:
    """Per shape with evidence (only `shape` when given): every model with verdicts, suite results or
    pairwise verdicts on it, ranked (`rank_shape`)."""
    book = _book(counts, bench_counts, families)
    seen: dict[str, set[str]] = {}
    for alias, on in counts:
        seen.setdefault(on, set()).add(alias)
    for winner, loser, on in pairs:
        seen.setdefault(on, set()).update((winner, loser))
    wanted = [on for on in _shape_order(set(seen)) if shape is None or on == shape]
    return {on: rank_shape(book, on, seen[on], pairs) for on in wanted}


async def read_standings(
    db: Database, collection: str | None, shape: str | None
) -> dict[str, list[dict[str, Any]]]:
    """The ranked record of the whole bench, or of `collection`'s evidence (the bench's prior either way)."""
    bench_counts = await db.verdicts.evidence_counts()
    counts = bench_counts if collection is None else await db.verdicts.evidence_counts_in(collection)
    pairs = await db.verdicts.pairwise_counts(collection)
    roster = (await db.bench.snapshot()).roster
    families = {alias: family(model.served_id) for alias, model in roster.items()}
    return rank(counts, bench_counts, pairs, families, shape)
