"""Information-directed sampling (Russo & Van Roy 2014, 2018) for the explorer seats, beside the default.

    .venv/bin/python benchmarks/seating_ids.py --tosses 1 --variants a-w2,a-f2   # 100 seeds: about 6 minutes
    .venv/bin/python benchmarks/seating_ids.py --variants b-f1.75 --first-seed 101   # three tosses: 9 minutes
    .venv/bin/python benchmarks/seating_ids.py --list

IDS weighs answering well and learning by one measure, not by an optimism
width: the seat goes to the candidate with the least expected regret for
the information its verdict gives about which model is best. It was tried
for issue 18 (docs/seating-research.md) and not kept: it lands on the same
frontier as every other rule, at about six times the seating time.

Per panel, on the panel's shape, over the candidates the floor leaves free:
M draws of every candidate's usefulness from its posterior (the whole prior,
or the prior at a share of its strength); A* is each draw's best. For each
candidate a,

- the expected regret Delta_a = E[theta_{A*}] - E[theta_a];
- the variance-based information gain v_a = sum_{a*} P(A* = a*) (E[theta_a | A* = a*] - E[theta_a])^2
  (the cheap IDS variant); with an epsilon-best target, A* is instead a member, taken uniformly, of the
  draw's set of candidates within `eps` of its best;

and the seat goes to argmin Delta_a^lam / v_a (deterministic IDS; lam = 2 is the IDS ratio).
Variants: (a) IDS picks the seat to learn only (among the candidates other than the record's leader; the
second seat keeps the default's coin: the leader 65 in 100, else the least known); (b) IDS picks both
free seats (the second: IDS again with the first taken out of the choice), no leader coin. The floor and
its early seats are the default's in every variant. Draws come from the rule's own random source.

A variant's name says the same: `a` or `b`, then `w` (the whole prior) or `f` (the prior at a fifth)
and lam, then `-e` for the 0.05-best target, `-r` for randomized IDS, `-m256` for 256 draws
(`b-f1.75`: both seats, the prior at a fifth, lam 1.75).
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Literal

from seating_sim import POLICIES, Outcome, beside_default_arguments, make_world, play, play_beside_default

import panelgate.core.explorer_policy as explorer_policy
from panelgate.core.explorer_policy import ExplorerEvidence

DEFAULT = next(policy for policy in POLICIES if "(the default)" in policy.name)


@dataclass(frozen=True)
class Ids:
    """One IDS variant: which seats it fills, from which posterior, and by which ratio."""

    mode: Literal["a", "b"]
    """`a`: the seat to learn only; `b`: both free seats."""
    prior_share: float = 1.0
    lam: float = 2.0
    eps: float = 0.0
    """0: the target is A* itself; over 0, a member of the draw's `eps`-best set."""
    draws: int = 128
    randomized: bool = False
    """The best mix of two candidates (randomized IDS) rather than the lowest ratio."""

    def label(self) -> str:
        seat = "seat to learn" if self.mode == "a" else "both seats"
        prior = "whole prior" if self.prior_share == 1.0 else f"prior at {self.prior_share:g}"
        target = "A*" if not self.eps else f"{self.eps:g}-best set"
        kind = "randomized" if self.randomized else "deterministic"
        return f"IDS {seat}, {prior}, Δ^{self.lam:g}/v, {target}, M={self.draws}, {kind}"


VARIANTS: dict[str, Ids] = {}
MODES: tuple[Literal["a", "b"], ...] = ("a", "b")
for mode in MODES:
    for share, tag in ((1.0, "w"), (0.2, "f")):
        for lam in (1.0, 1.25, 1.5, 1.75, 2.0, 2.25, 2.5, 3.0, 4.0, 5.0):
            name = f"{mode}-{tag}{lam:g}"
            VARIANTS[name] = Ids(mode, share, lam)
            VARIANTS[name + "-e"] = Ids(mode, share, lam, eps=0.05)
            VARIANTS[name + "-r"] = Ids(mode, share, lam, randomized=True)
            VARIANTS[name + "-m256"] = Ids(mode, share, lam, draws=256)


def ids_stats(
    pool: Sequence[str], shape: str, evidence: ExplorerEvidence, ids: Ids
) -> tuple[dict[str, float], dict[str, float]]:
    """(Delta, v) per candidate, from `ids.draws` draws of every posterior."""
    book, rng, m = evidence.book, evidence.rng, ids.draws
    samples: list[list[float]] = []
    for alias in pool:
        post = book.posterior(alias, shape, prior_share=ids.prior_share)
        a, b, beta = post.alpha, post.beta, rng.betavariate
        samples.append([beta(a, b) for _ in range(m)])
    n = len(pool)
    means = [sum(row) / m for row in samples]
    columns = list(zip(*samples, strict=True))  # one tuple per draw
    best_total = 0.0
    # per target: the weight of the draws that name it, and every candidate's weighted sum over them
    weight: dict[int, float] = {}
    sums: dict[int, list[float]] = {}
    for col in columns:
        top = max(col)
        best_total += top
        near_top = [i for i in range(n) if col[i] >= top - ids.eps]
        targets = near_top if ids.eps > 0 else [col.index(top)]
        w = 1.0 / len(targets)
        for t in targets:
            weight[t] = weight.get(t, 0.0) + w
            acc = sums.get(t)
            if acc is None:
                acc = sums[t] = [0.0] * n
            for i in range(n):
                acc[i] += w * col[i]
    best_mean = best_total / m
    gain = [0.0] * n
    for t, wt in weight.items():
        p, acc = wt / m, sums[t]
        for i in range(n):
            d = acc[i] / wt - means[i]
            gain[i] += p * d * d
    delta = {alias: max(best_mean - means[i], 0.0) for i, alias in enumerate(pool)}
    info = {alias: gain[i] for i, alias in enumerate(pool)}
    return delta, info


def ids_choose(
    choices: Sequence[str],
    delta: dict[str, float],
    info: dict[str, float],
    ids: Ids,
    evidence: ExplorerEvidence,
) -> str:
    """The candidate among `choices` IDS seats: argmin Delta^lam / v (or a draw from the optimal pair)."""

    def ratio(alias: str) -> float:
        v = info[alias]
        return delta[alias] ** ids.lam / v if v > 0 else math.inf

    def key(alias: str) -> tuple[float, float, str]:
        return (ratio(alias), delta[alias], alias)

    if not ids.randomized:
        return min(choices, key=key)
    ranked = sorted(choices, key=key)
    best = (ratio(ranked[0]), 1.0, ranked[0], ranked[0])
    ranked = ranked[:12]  # pairs among the best dozen by ratio
    for i, x in enumerate(ranked):
        for y in ranked[i + 1 :]:
            q, value = _best_mix(delta[x], info[x], delta[y], info[y], ids.lam)
            if value < best[0]:
                best = (value, q, x, y)
    _, q, x, y = best
    return x if evidence.rng.random() < q else y


def _best_mix(d1: float, v1: float, d2: float, v2: float, lam: float) -> tuple[float, float]:
    """The share q of x (and the ratio) minimising (q d1 + (1-q) d2)^lam / (q v1 + (1-q) v2), on a grid."""
    best_q, best = 1.0, math.inf
    for k in range(21):
        q = k / 20
        v = q * v1 + (1 - q) * v2
        if v <= 0:
            continue
        value = (q * d1 + (1 - q) * d2) ** lam / v
        if value < best:
            best_q, best = q, value
    return best_q, best


@contextmanager
def seating_by(ids: Ids) -> Iterator[None]:
    """While inside, the default's free seats follow `ids` (this process only)."""

    def challenger(pool: Sequence[str], leader: str, shape: str, evidence: ExplorerEvidence) -> str:
        delta, info = ids_stats(pool, shape, evidence, ids)
        return ids_choose([a for a in pool if a != leader], delta, info, ids, evidence)

    def always_contested(*_: object) -> bool:
        return True

    def learn_and_lead(
        pool: Sequence[str], leader: str, shape: str, seats: int, evidence: ExplorerEvidence
    ) -> list[str]:
        delta, info = ids_stats(pool, shape, evidence, ids)
        first = ids_choose(pool, delta, info, ids, evidence)
        if seats == 1:
            return [first]
        rest = [alias for alias in pool if alias != first]
        return [first, ids_choose(rest, delta, info, ids, evidence)]

    kept = explorer_policy._challenger, explorer_policy.may_overturn, explorer_policy._learn_and_lead
    if ids.mode == "a":
        explorer_policy._challenger, explorer_policy.may_overturn = challenger, always_contested
    else:
        explorer_policy._learn_and_lead = learn_and_lead
    try:
        yield
    finally:
        explorer_policy._challenger, explorer_policy.may_overturn, explorer_policy._learn_and_lead = kept


def run_seed(job: tuple[int, int, int, tuple[Ids, ...]]) -> list[Outcome]:
    """The default, then each IDS variant, on one world with one toss of the coins."""
    seed, panels, coins, variants = job
    world = make_world(seed, panels)
    outcomes = [play(world, DEFAULT, seed, coins)[0]]
    for ids in variants:
        with seating_by(ids):
            outcomes.append(play(world, DEFAULT, seed, coins)[0])
    return outcomes


def main() -> None:
    parser = beside_default_arguments(__doc__)
    parser.add_argument(
        "--variants", default="a-w2,a-f2,b-w2,b-f2", help="names from --list, comma separated"
    )
    parser.add_argument("--draws", type=int, default=0, help="override M for every variant (0: keep)")
    parser.add_argument("--list", action="store_true")
    args = parser.parse_args()
    if args.list:
        for name, ids in VARIANTS.items():
            print(f"{name}: {ids.label()}")
        return
    variants = tuple(
        replace(VARIANTS[name], draws=args.draws) if args.draws else VARIANTS[name]
        for name in args.variants.split(",")
    )
    names = args.variants.split(",")
    policies = [
        DEFAULT,
        *(replace(DEFAULT, name=f"{n}: {v.label()}") for n, v in zip(names, variants, strict=True)),
    ]
    seeds = range(args.first_seed, args.first_seed + args.seeds)
    jobs = [(seed, args.panels, coins, variants) for seed in seeds for coins in range(args.tosses)]
    began = time.monotonic()
    play_beside_default(run_seed, jobs, policies, args)
    print(f"\nwall {time.monotonic() - began:.0f} s")


if __name__ == "__main__":
    main()
