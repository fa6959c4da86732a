"""The bench's prior: how far families, models and shapes spread around the bench's mean.

How much a model's `code` record should borrow from its `prose` record, or a
new sibling from its family's, is a fact about this bench, not a constant:
on one bench a good model is good at everything, on another each model has
its one strong shape. So the spread is fitted from the verdicts themselves
(empirical Bayes, by the method of moments) as three variances of the true
usefulness around the bench's mean:

- `family_var`: what two cells of sibling models share (their covariance);
- `model_var`: what two shapes of one model share beyond their family;
- `shape_var`: what is left to each (model, shape) on its own.

Covariances are taken between different cells, so the binomial noise of a
small count (which no two cells share) drops out; the one variance that sees
it has it subtracted (unbiased: a cell's noise is p(1 − p)/n, smaller than
the bench's mean(1 − mean)/n by the very spread being estimated). Each
estimate is blended with a weak default by how much data it rests on, so a
new bench pools moderately until it has shown how it spreads; the two shared
spreads count only as far as they stand clear of their standard error
(`SUPPORT_Z`), so a few models cannot make the whole bench pool. Weights favour
cells with more verdicts but saturate, so a few heavily judged cells cannot
speak for the whole bench.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

DEFAULT_STRENGTH = 4.0
"""The prior's strength (pseudo-verdicts) on a bench with no data: Beta(2, 2) around 0.5."""

MODEL_SHARE = 0.5
"""On a bench with little data, the share of the spread that a model's shapes are assumed to share."""

FAMILY_SHARE = 0.4
"""...and the share that sibling models (the same weights served elsewhere) are assumed to share."""

DEFAULT_PAIRS = 5.0
"""How many fully judged cells (or pairs of cells) the defaults above are worth beside the data."""

SUPPORT_Z = 2.0
"""A shared spread is pooled only as far as it stands this many standard errors above nothing.

Explorers seat the promising cells again and again, so a handful of heavily
judged cells (a strong model's two strong shapes) can make a model's shapes
look as if they moved together when most models' do not; pooling on such a
covariance pulls every barely judged cell toward its model's best shape and
scrambles the ranking. Counted group by group (a model, a family), a
covariance carried by a few groups has a wide standard error and is cut
back; one every group shows survives.
"""

MIN_VARIANCE = 1e-4
"""No variance is fitted below this: a shape's record always keeps something of its own."""


@dataclass(frozen=True)
class Prior:
    """The fitted hyperparameters (variances are of the true usefulness, on the 0–1 scale)."""

    mean: float = 0.5
    family_var: float = FAMILY_SHARE * 0.25 / (DEFAULT_STRENGTH + 1.0)
    model_var: float = (MODEL_SHARE - FAMILY_SHARE) * 0.25 / (DEFAULT_STRENGTH + 1.0)
    shape_var: float = (1.0 - MODEL_SHARE) * 0.25 / (DEFAULT_STRENGTH + 1.0)

    def noise(self, trials: float) -> float:
        """The binomial variance of a rate observed over `trials` answers."""
        return self.mean * (1.0 - self.mean) / trials


def _reliability(trials: float) -> float:
    return trials / (trials + DEFAULT_STRENGTH)


@dataclass
class _Sums:
    """Running sums of weighted deviations for one group (a model or a family)."""

    deviation: float = 0.0
    deviation_sq: float = 0.0
    weight: float = 0.0
    weight_sq: float = 0.0

    def add(self, deviation: float, weight: float) -> None:
        self.deviation += weight * deviation
        self.deviation_sq += (weight * deviation) ** 2
        self.weight += weight
        self.weight_sq += weight * weight

    def cross(self) -> tuple[float, float]:
        """Σ over pairs of different members of w·w'·d·d', and Σ w·w' (each pair counted twice)."""
        return self.deviation**2 - self.deviation_sq, self.weight**2 - self.weight_sq


def _blend(total: float, weight: float, default: float) -> float:
    return (total + DEFAULT_PAIRS * default) / (weight + DEFAULT_PAIRS)


def _shared(groups: list[tuple[float, float]], default: float) -> float:
    """The covariance the groups' (Σ w·w'·d·d', Σ w·w') show, less `SUPPORT_Z` standard errors.

    The standard error treats each group as one independent draw (a ratio
    estimator's sandwich variance), so it is wide when a few groups carry
    the estimate. Blended with `default` as every estimate here is.
    """
    total = sum(pairs for pairs, _ in groups)
    weight = sum(w for _, w in groups)
    if weight <= 0:
        return _blend(0.0, 0.0, default)
    found = total / weight
    error = math.sqrt(sum((pairs - found * w) ** 2 for pairs, w in groups)) / weight
    return _blend(max(found - SUPPORT_Z * error, 0.0) * weight, weight, default)


def fit_prior(cells: Mapping[tuple[str, str], tuple[float, float]], families: Mapping[str, str]) -> Prior:
    """Fit the prior from every (alias, shape) → (successes, trials); `families` maps alias → family.

    The bench's mean is each cell's rate weighted by how much it says about
    the bench (1 / (the cells' spread + its own noise)), not every answer
    pooled: explorers seat the promising models again and again, and pooled,
    their answers would lift the mean every less-judged cell is pulled toward.
    Like every estimate here it is blended with a default (one half, worth
    `DEFAULT_PAIRS` cells), so a new bench starts near even odds. The spread
    is fitted around the pooled rate first, then again around that weighted
    mean.
    """
    seen = {key: (s, n) for key, (s, n) in cells.items() if n > 0}
    pooled = (sum(s for s, _ in seen.values()) + 1.0) / (sum(n for _, n in seen.values()) + 2.0)
    first = _spread_around(pooled, seen, families)
    cell_var = first.family_var + first.model_var + first.shape_var
    weights = {key: 1.0 / (cell_var + first.noise(n)) for key, (_, n) in seen.items()}
    weighted = sum(weights[key] * s / n for key, (s, n) in seen.items())
    mean = (weighted + 0.5 * DEFAULT_PAIRS / cell_var) / (sum(weights.values()) + DEFAULT_PAIRS / cell_var)
    return _spread_around(min(0.98, max(0.02, mean)), seen, families)


def _spread_around(
    mean: float, seen: Mapping[tuple[str, str], tuple[float, float]], families: Mapping[str, str]
) -> Prior:
    """The three variances of the cells' true usefulness around `mean` (see the module's docstring)."""
    spread = mean * (1.0 - mean)
    default = spread / (DEFAULT_STRENGTH + 1.0)
    total, total_weight = 0.0, 0.0
    models: dict[str, _Sums] = {}
    for (alias, _), (s, n) in seen.items():
        deviation, weight = s / n - mean, _reliability(n)
        if n > 1:  # E[d²] = var + (spread − var) / n: one answer alone says nothing of the spread
            total += weight * (deviation**2 - spread / n)
            total_weight += weight * (1.0 - 1.0 / n)
        models.setdefault(alias, _Sums()).add(deviation, weight)
    kin: dict[str, _Sums] = {}
    for alias, sums in models.items():
        # a model joins its family as one member (its mean deviation, its total weight), so the
        # family's cross terms pair cells of different siblings only
        kin.setdefault(families.get(alias, alias), _Sums()).add(sums.deviation / sums.weight, sums.weight)
    cell_var = max(_blend(total, total_weight, default), 2 * MIN_VARIANCE)
    within_model = [sums.cross() for sums in models.values()]
    within_family = [sums.cross() for sums in kin.values()]
    model_cov = min(_shared(within_model, MODEL_SHARE * default), cell_var - MIN_VARIANCE)
    family_cov = min(_shared(within_family, FAMILY_SHARE * default), model_cov)
    return Prior(
        mean=mean,
        family_var=family_cov,
        model_var=model_cov - family_cov,
        shape_var=cell_var - model_cov,
    )
