"""Whether a better reading of the verdicts would name the best more often: the default rule with every
estimate taken under the simulated world's own prior.

    .venv/bin/python benchmarks/seating_true_prior.py                      # 100 seeds, 3 tosses: 5 minutes
    .venv/bin/python benchmarks/seating_true_prior.py --first-seed 101

The record fits its prior from the bench's verdicts (`core/evidence_prior.py`):
one Beta per cell, pooled as far as the bench shows pooling holds. In
`seating_sim.py`'s worlds the truth is drawn from two kinds of cells, most
from Beta(2, 3) and a few "strong" ones near 0.8, which no single Beta
describes: a strong cell's first verdicts are pulled toward the bench's
mean harder than they should be. Here every posterior the rule and the
naming read (the leader, its doubt, the challenger's optimism, the least
known's ties, the Thompson draws, the named best and the ranking) comes
from that very mixture instead, which no real rule knows. Everything else
is the default's, played by the gateway's own seating code on the same
draws. The difference from the default is what reading the verdicts
better could gain, beside what seating them elsewhere could
(`seating_contenders.py`).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace

from seating_sim import (
    MODELS,
    POLICIES,
    SHAPES,
    STRONG_MODELS,
    STRONG_SHAPES,
    Outcome,
    beside_default_arguments,
    make_world,
    play,
    play_beside_default,
)

from panelgate.core import evidence

DEFAULT = next(policy for policy in POLICIES if "(the default)" in policy.name)

STRONG_SHARE = STRONG_MODELS * STRONG_SHAPES / (MODELS * len(SHAPES))
Component = tuple[float, float, float]
"""(weight, alpha, beta) of one kind of cell."""
WORLD_PRIOR: tuple[Component, ...] = (
    (1.0 - STRONG_SHARE, 2.0, 3.0),
    (STRONG_SHARE, 0.8 * 532.0, 0.2 * 532.0),  # uniform(0.77, 0.83): mean 0.8, variance 0.0003
)


def _log_beta(a: float, b: float) -> float:
    return math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)


def mixture_posterior(useful: int, judged: int, components: tuple[Component, ...]) -> tuple[float, float]:
    """(alpha, beta) of the Beta with the mean and variance of the mixture's posterior after the counts."""
    fail = judged - useful
    logs = [math.log(w) + _log_beta(a + useful, b + fail) - _log_beta(a, b) for w, a, b in components]
    top = max(logs)
    weights = [math.exp(log - top) for log in logs]
    total = sum(weights)
    first = second = 0.0
    for weight, (_, a, b) in zip(weights, components, strict=True):
        a, b = a + useful, b + fail
        first += weight / total * a / (a + b)
        second += weight / total * a * (a + 1.0) / ((a + b) * (a + b + 1.0))
    variance = max(second - first * first, 1e-6)
    strength = first * (1.0 - first) / variance - 1.0
    return first * strength, (1.0 - first) * strength


@contextmanager
def under_world_prior() -> Iterator[None]:
    """While inside, every posterior comes from `WORLD_PRIOR` (a prior share scales both components'
    strength), this process only."""
    kept = evidence.EvidenceBook.posterior

    def posterior(
        self: evidence.EvidenceBook, alias: str, shape: str, prior_share: float = 1.0
    ) -> evidence.Posterior:
        cell = self.counts(alias, shape)
        scaled = tuple((w, a * prior_share, b * prior_share) for w, a, b in WORLD_PRIOR)
        alpha, beta = mixture_posterior(cell.useful, cell.judged, scaled)
        return evidence.Posterior(alpha=alpha, beta=beta, judged=cell.judged)

    evidence.EvidenceBook.posterior = posterior
    try:
        yield
    finally:
        evidence.EvidenceBook.posterior = kept


def run_seed(job: tuple[int, int, int]) -> list[Outcome]:
    """The default, then the default under the world's prior, on one world with one toss of the coins."""
    seed, panels, coins = job
    world = make_world(seed, panels)
    outcomes = [play(world, DEFAULT, seed, coins)[0]]
    with under_world_prior():
        outcomes.append(play(world, DEFAULT, seed, coins)[0])
    return outcomes


def main() -> None:
    args = beside_default_arguments(__doc__).parse_args()
    policies = [DEFAULT, replace(DEFAULT, name="the default under the world's own prior")]
    seeds = range(args.first_seed, args.first_seed + args.seeds)
    jobs = [(seed, args.panels, coins) for seed in seeds for coins in range(args.tosses)]
    play_beside_default(run_seed, jobs, policies, args)


if __name__ == "__main__":
    main()
