"""What the record says about a model on a shape of work: a Beta posterior.

Verdicts are few and uneven: a model new to the bench, or asked its first
`code` panel, has none, and three lucky verdicts are not a track record. So
each (model, shape) gets a Beta posterior whose prior is pooled from what
else the record knows, as far as this bench shows such pooling is warranted
(`core/evidence_prior.py` fits how far families, models and shapes spread):

1. the family (`core/family.py`: the same weights served elsewhere): a model
   with no verdicts starts from its siblings' record, pulled toward the
   bench's mean;
2. the model's other shapes: a model's first `code` panel starts from what it
   earned on other shapes, pulled toward its family's.

Each step weighs a record by its size and leaves out the cell it is a prior
for, so nothing is counted twice (a normal approximation at these two
levels, matched to a Beta by its mean and variance). Review-suite results
count as evidence at `SUITE_WEIGHT` each.

Pure: the store fills `Counts` in one query; nothing here reads a clock or a
random source except the `random.Random` a caller passes to `Posterior.draw`.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from dataclasses import dataclass

from panelgate.core.beta_dist import beta_interval
from panelgate.core.evidence_prior import Prior, fit_prior

SUITE_WEIGHT = 0.5
"""One review-suite result counts as half a verdict.

A suite task has a known answer, so its grade is never a person's mood; but
it is a seeded bug in a fixture, not the caller's own work, and a model that
aces fixtures can still miss what people need. Half a verdict lets a suite
run move a model that has no verdicts yet, while a few dozen real verdicts
outweigh it.
"""

STRENGTH_RANGE = (1.0, 200.0)
"""A prior's strength (pseudo-verdicts) stays in this range: never flat, never beyond evidence's reach."""

CREDIBLE_MASS = 0.9
"""The credible interval shown beside each estimate holds 90 % of the posterior."""


@dataclass(frozen=True)
class Counts:
    """The evidence on one (model, shape): verdicts and review-suite results."""

    useful: int = 0
    not_useful: int = 0
    suite_right: int = 0
    suite_wrong: int = 0

    @property
    def judged(self) -> int:
        """Verdicts given by people (suite results are not counted here)."""
        return self.useful + self.not_useful

    @property
    def successes(self) -> float:
        return self.useful + SUITE_WEIGHT * self.suite_right

    @property
    def trials(self) -> float:
        return self.judged + SUITE_WEIGHT * (self.suite_right + self.suite_wrong)

    def __add__(self, other: Counts) -> Counts:
        return Counts(
            self.useful + other.useful,
            self.not_useful + other.not_useful,
            self.suite_right + other.suite_right,
            self.suite_wrong + other.suite_wrong,
        )


_NONE = Counts()


@dataclass(frozen=True)
class Posterior:
    """Beta(alpha, beta) over the share of a model's answers on a shape that are useful."""

    alpha: float
    beta: float
    judged: int = 0
    """Verdicts behind it (on this model and shape; the prior's pseudo-verdicts not included)."""

    @property
    def mean(self) -> float:
        return self.alpha / (self.alpha + self.beta)

    def interval(self, mass: float = CREDIBLE_MASS) -> tuple[float, float]:
        """The equal-tailed credible interval (90 %: from the 5th to the 95th percentile)."""
        return beta_interval(self.alpha, self.beta, mass)

    @property
    def spread(self) -> float:
        """The posterior's standard deviation."""
        total = self.alpha + self.beta
        return math.sqrt(self.alpha * self.beta / (total * total * (total + 1.0)))

    def draw(self, rng: random.Random) -> float:
        """One plausible usefulness, drawn from the posterior (a Thompson draw)."""
        return rng.betavariate(self.alpha, self.beta)


class EvidenceBook:
    """Posteriors for every (alias, shape), from one snapshot of the counts.

    Built once per snapshot (`fit_evidence`); `posterior` is then a few
    dictionary reads (and remembered), cheap enough to ask for every
    candidate of every panel.
    """

    def __init__(self, counts: Mapping[tuple[str, str], Counts], families: Mapping[str, str], prior: Prior):
        self.prior = prior
        self._cells = dict(counts)
        self._shapes = tuple(dict.fromkeys(shape for _, shape in self._cells))
        self._families = dict(families)
        self._posteriors: dict[tuple[str, str, float], Posterior] = {}
        self._best: dict[str, float] = {}
        self._thinner: dict[str, dict[str, int]] = {}
        self._models: dict[str, tuple[float, float]] = {}
        """alias → (Σ w, Σ w·d) over its cells: w a cell's precision about its model's level, d its
        deviation from the bench's mean."""
        for (alias, _), cell in counts.items():
            weight, deviation = self._precision(cell)
            total, weighted = self._models.get(alias, (0.0, 0.0))
            self._models[alias] = (total + weight, weighted + weight * deviation)
        self._kin: dict[str, tuple[float, float]] = {}
        """family → (Σ 1/v, Σ x/v) over its models: x a model's level from its cells, v its variance."""
        for alias, (total, weighted) in self._models.items():
            if total > 0:
                precision = 1.0 / (prior.model_var + 1.0 / total)
                kin = self.family(alias)
                kin_total, kin_weighted = self._kin.get(kin, (0.0, 0.0))
                self._kin[kin] = (kin_total + precision, kin_weighted + precision * weighted / total)

    def _precision(self, cell: Counts) -> tuple[float, float]:
        """(weight, deviation from the bench's mean) of one cell as evidence about its model's level."""
        if cell.trials <= 0:
            return 0.0, 0.0
        weight = 1.0 / (self.prior.shape_var + self.prior.noise(cell.trials))
        return weight, cell.successes / cell.trials - self.prior.mean

    def _model_level(self, alias: str, leave_out: Counts) -> tuple[float, float]:
        """The model's level (deviation from the bench's mean) and its variance, without `leave_out`."""
        prior = self.prior
        own_total, own_weighted = self._models.get(alias, (0.0, 0.0))
        kin_total, kin_weighted = self._kin.get(self.family(alias), (0.0, 0.0))
        if own_total > 0:  # the siblings' record, without this model's own
            precision = 1.0 / (prior.model_var + 1.0 / own_total)
            kin_total, kin_weighted = (
                kin_total - precision,
                kin_weighted - precision * own_weighted / own_total,
            )
        family_precision = 1.0 / prior.family_var + max(kin_total, 0.0) if prior.family_var > 0 else 0.0
        family_level = kin_weighted / family_precision if family_precision > 0 else 0.0
        family_spread = 1.0 / family_precision if family_precision > 0 else 0.0
        weight, deviation = self._precision(leave_out)
        own_total, own_weighted = own_total - weight, own_weighted - weight * deviation
        start = family_spread + prior.model_var
        if start <= 0:
            return family_level, 0.0
        precision = 1.0 / start + max(own_total, 0.0)
        return (family_level / start + own_weighted) / precision, 1.0 / precision

    def family(self, alias: str) -> str:
        return self._families.get(alias, alias)

    @property
    def shapes(self) -> tuple[str, ...]:
        """Every shape with evidence on it."""
        return self._shapes

    def best_mean(self, shape: str) -> float:
        """The highest posterior mean on `shape` (the bench's mean when nobody has evidence there)."""
        known = self._best.get(shape)
        if known is None:
            means = [self.posterior(alias, s).mean for alias, s in self._cells if s == shape]
            known = self._best[shape] = max(means, default=self.prior.mean)
        return known

    def thinner_records(self, alias: str, shape: str) -> int:
        """How many of the model's shapes hold a thinner record than `shape`: fewer verdicts, or as many
        and a higher estimate (remembered per model: the floor asks it for every candidate, every panel)."""
        ranks = self._thinner.get(alias)
        if ranks is None:
            keys = {s: self._thinness(alias, s) for s in self.shapes}
            ranks = self._thinner[alias] = {s: sum(k < key for k in keys.values()) for s, key in keys.items()}
        if shape in ranks:
            return ranks[shape]
        here = self._thinness(alias, shape)
        return sum(self._thinness(alias, s) < here for s in self.shapes)

    def _thinness(self, alias: str, shape: str) -> tuple[int, float]:
        return (self.counts(alias, shape).judged, -self.posterior(alias, shape).mean)

    def counts(self, alias: str, shape: str) -> Counts:
        return self._cells.get((alias, shape), _NONE)

    def model_rate(self, alias: str) -> float:
        """The model's usefulness over all its shapes, pooled toward its family's and the bench's."""
        level, _ = self._model_level(alias, _NONE)
        return min(1.0, max(0.0, self.prior.mean + level))

    def prior_for(self, alias: str, shape: str) -> tuple[float, float]:
        """(alpha, beta) of the prior on (alias, shape): everything the record knows but that cell."""
        cell = self.counts(alias, shape)
        level, variance = self._model_level(alias, cell)
        mean = min(0.98, max(0.02, self.prior.mean + level))
        low, high = STRENGTH_RANGE
        strength = min(high, max(low, mean * (1.0 - mean) / (variance + self.prior.shape_var) - 1.0))
        return strength * mean, strength * (1.0 - mean)

    def posterior(self, alias: str, shape: str, prior_share: float = 1.0) -> Posterior:
        """The posterior on (alias, shape): the pooled prior plus this cell's own evidence.

        `prior_share` below 1 weighs the prior at that share of its strength
        (its mean unchanged), so the cell's own verdicts count for more: how
        seating asks what a thinly judged model might still turn out to be."""
        known = self._posteriors.get((alias, shape, prior_share))
        if known is not None:
            return known
        cell = self.counts(alias, shape)
        alpha, beta = self.prior_for(alias, shape)
        found = Posterior(
            alpha=prior_share * alpha + cell.successes,
            beta=prior_share * beta + (cell.trials - cell.successes),
            judged=cell.judged,
        )
        self._posteriors[(alias, shape, prior_share)] = found
        return found


def fit_evidence(counts: Mapping[tuple[str, str], Counts], families: Mapping[str, str]) -> EvidenceBook:
    """The evidence book for one snapshot: `counts` keyed by (alias, shape), `families` alias → family."""
    cells = {key: (cell.successes, cell.trials) for key, cell in counts.items()}
    return EvidenceBook(counts, families, fit_prior(cells, families))
