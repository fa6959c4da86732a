"""What explorer seats could reach if the truth were known: the ceiling `seating_sim.py`'s rules learn toward.

    .venv/bin/python benchmarks/seating_oracle.py            # 100 seeds, a few seconds

The same worlds as `seating_sim.py` (its `make_world`), but no rule and no
learning: each free model sits `--floor-seats` times over the run, spread
evenly over the shapes (the staleness floor at its best), and every other
explorer seat of a shape goes to the free models in proportion to their
*hidden* usefulness to a power (0: evenly, as the old rule; large: nearly all
to the best). Members sit on every panel. Verdicts are drawn as in the
simulation (judged with probability 0.6, useful with the hidden probability)
and each cell's estimate is its posterior mean under the world's true prior,
Beta(2, 3). Reported per power: the explorer seats' mean hidden usefulness and
the per-shape rank correlation of the estimates with the truth, the two bars of
issue 18 that pull against each other.
"""

from __future__ import annotations

import argparse
import random
import statistics

from seating_sim import JUDGED, SHAPES, make_world, spearman

PANELS = 600
EXPLORER_SEATS = 2
MEMBER_VERDICTS = PANELS // len(SHAPES) * JUDGED
"""A member sits on every panel, so about this many verdicts per shape."""
TRUE_PRIOR = (2.0, 3.0)


def _judged(seats: float, truth: float, rng: random.Random) -> tuple[int, int]:
    """(useful, judged) verdicts from `seats` seats (a fraction sits with that chance)."""
    whole = int(seats) + (1 if rng.random() < seats - int(seats) else 0)
    judged = sum(rng.random() < JUDGED for _ in range(whole))
    return sum(rng.random() < truth for _ in range(judged)), judged


def one_world(seed: int, power: float, floor_seats: int) -> tuple[float, list[float]]:
    world = make_world(seed, PANELS)
    rng = random.Random(seed * 13 + 5)
    per_shape = PANELS // len(SHAPES) * EXPLORER_SEATS
    seats: dict[tuple[str, str], float] = {}
    for shape in SHAPES:
        rest = per_shape - floor_seats * len(world.free) / len(SHAPES)
        weights = {alias: world.truth[(alias, shape)] ** power for alias in world.free}
        total = sum(weights.values())
        for alias in world.free:
            seats[(alias, shape)] = floor_seats / len(SHAPES) + rest * weights[alias] / total
    useful = sum(n * world.truth[cell] for cell, n in seats.items()) / sum(seats.values())
    alpha, beta = TRUE_PRIOR
    rhos = []
    for shape in SHAPES:
        estimates, truths = [], []
        for alias in (*world.members, *world.free):
            truth = world.truth[(alias, shape)]
            n = MEMBER_VERDICTS / JUDGED if alias in world.members else seats[(alias, shape)]
            good, judged = _judged(n, truth, rng)
            estimates.append((alpha + good) / (alpha + beta + judged))
            truths.append(truth)
        rhos.append(spearman(estimates, truths))
    return useful, rhos


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=100)
    parser.add_argument("--floor-seats", type=int, default=20, help="seats per free model (default 20: K=30)")
    parser.add_argument("--powers", default="0,1,2,3,4,6,100")
    args = parser.parse_args()
    print("| power | explorer usefulness | Spearman (per shape) |\n|---|---|---|")
    for power in (float(p) for p in args.powers.split(",")):
        runs = [one_world(seed, power, args.floor_seats) for seed in range(1, args.seeds + 1)]
        useful = statistics.fmean(u for u, _ in runs)
        rho = statistics.fmean(r for _, rhos in runs for r in rhos)
        print(f"| {power:g} | {useful:.3f} | {rho:.3f} |")


if __name__ == "__main__":
    main()
