"""Where the default rule fails to name the best: the kinds of miss, and other readings of the same verdicts.

    .venv/bin/python benchmarks/seating_misses.py                    # 100 seeds × 600 panels, about 25 s
    .venv/bin/python benchmarks/seating_misses.py --first-seed 101

`seating_sim.py`'s near-best counts a (world, shape) as a hit when the model
the record names best (the highest posterior mean among the models with at
least 5 verdicts on the shape) is within 0.05 of the true best. This plays
the default rule in the same worlds, on the same draws, and sorts each miss
after the last panel:

- **none known**: no near-best model has 5 verdicts on the shape, so none
  could be named;
- **behind a rival**: one has, and the record estimates a worse model higher.

Then it names the best from the same verdicts in other ways: the record's
estimate with its prior at half or twice its strength, the world's own
prior (Beta(2, 3), which no real bench knows), the raw rate, each with a
gate of 3, 5 or 8 verdicts. If another reading named a near-best model much
more often, the misses would be the estimate's; if none does, they are the
seats': which models the rule gathered verdicts on.
"""

from __future__ import annotations

import argparse
import multiprocessing
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from seating_sim import MIN_VERDICTS, NEAR, POLICIES, SHAPES, Siblings, World, make_world, play

from panelgate.core.evidence import EvidenceBook

DEFAULT = next(policy for policy in POLICIES if "(the default)" in policy.name)
GATES = (3, MIN_VERDICTS, 8)
WORLD_PRIOR = (2.0, 3.0)

Reading = Callable[[EvidenceBook, str, str], float]


def _world_prior(book: EvidenceBook, alias: str, shape: str) -> float:
    cell = book.counts(alias, shape)
    return (WORLD_PRIOR[0] + cell.useful) / (sum(WORLD_PRIOR) + cell.judged)


def _raw_rate(book: EvidenceBook, alias: str, shape: str) -> float:
    cell = book.counts(alias, shape)
    return cell.useful / cell.judged if cell.judged else 0.0


READINGS: dict[str, Reading] = {
    "the record's estimate (what the simulation names by)": lambda book, a, s: book.posterior(a, s).mean,
    "the record's, its prior at half its strength": lambda book, a, s: book.posterior(a, s, 0.5).mean,
    "the record's, its prior at twice its strength": lambda book, a, s: book.posterior(a, s, 2.0).mean,
    "the world's own prior, Beta(2, 3)": _world_prior,
    "the raw rate": _raw_rate,
}


@dataclass
class ShapeRecord:
    """One (world, shape) after the last panel."""

    kind: str
    """`hit`, `none known` or `behind a rival`."""
    near_verdicts: list[int]
    """Verdicts on each near-best model."""
    near_estimate: float
    """The highest estimate among the near-best models."""
    named_verdicts: int
    named_by: dict[tuple[str, int], bool] = field(default_factory=dict)
    """(reading, gate) → whether the model that reading names is near-best."""


def _named(book: EvidenceBook, sitters: Sequence[str], shape: str, reading: Reading, gate: int) -> str | None:
    known = [alias for alias in sitters if book.counts(alias, shape).judged >= gate]
    return max(known, key=lambda alias: reading(book, alias, shape)) if known else None


def sort_shapes(world: World, book: EvidenceBook) -> list[ShapeRecord]:
    sitters = (*world.members, *world.free)
    found: list[ShapeRecord] = []
    for shape in SHAPES:
        best = max(world.truth[(alias, shape)] for alias in sitters)
        near = [alias for alias in sitters if world.truth[(alias, shape)] >= best - NEAR]
        named = _named(book, sitters, shape, READINGS[next(iter(READINGS))], MIN_VERDICTS)
        if named in near:
            kind = "hit"
        elif any(book.counts(alias, shape).judged >= MIN_VERDICTS for alias in near):
            kind = "behind a rival"
        else:
            kind = "none known"
        result = ShapeRecord(
            kind=kind,
            near_verdicts=[book.counts(alias, shape).judged for alias in near],
            near_estimate=max(book.posterior(alias, shape).mean for alias in near),
            named_verdicts=book.counts(named, shape).judged if named else 0,
        )
        for name, reading in READINGS.items():
            for gate in GATES:
                result.named_by[(name, gate)] = _named(book, sitters, shape, reading, gate) in near
        found.append(result)
    return found


def run_seed(job: tuple[int, int, Siblings]) -> list[ShapeRecord]:
    seed, panels, siblings = job
    world = make_world(seed, panels, siblings)
    _, book = play(world, DEFAULT, seed)
    return sort_shapes(world, book)


def _spread(values: Sequence[float], digits: int = 0) -> str:
    """The median and the middle 80 % of `values` (all of them when few)."""
    ordered = sorted(values)
    if len(ordered) >= 10:
        deciles = statistics.quantiles(ordered, n=10)
        low, high = deciles[0], deciles[-1]
    else:
        low, high = ordered[0], ordered[-1]
    return f"{statistics.median(ordered):.{digits}f} ({low:.{digits}f}–{high:.{digits}f})"


def report(shapes: list[ShapeRecord]) -> str:
    misses = [shape for shape in shapes if shape.kind != "hit"]
    lines = [
        f"{len(shapes)} (world, shape), {len(misses)} misses ({len(misses) / len(shapes):.1%})",
        "",
        "| miss | (world, shape) | verdicts on the best-known near-best model | its estimate "
        "| verdicts on the model named | named judged more often |",
        "|---|---|---|---|---|---|",
    ]
    for kind in ("none known", "behind a rival"):
        some = [shape for shape in misses if shape.kind == kind]
        if not some:
            continue
        most = [max(shape.near_verdicts) for shape in some]
        more = sum(shape.named_verdicts > max(shape.near_verdicts) for shape in some) / len(some)
        lines.append(
            f"| {kind} | {len(some)} | {_spread(most)} | {_spread([s.near_estimate for s in some], 2)} "
            f"| {_spread([s.named_verdicts for s in some])} | {more:.0%} |"
        )
    lines += ["", "| naming the best by | " + " | ".join(f"gate {gate}" for gate in GATES) + " |"]
    lines.append("|---|" + "---|" * len(GATES))
    for name in READINGS:
        shares = [statistics.fmean(shape.named_by[(name, gate)] for shape in shapes) for gate in GATES]
        lines.append(f"| {name} | " + " | ".join(f"{share:.1%}" for share in shares) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=100)
    parser.add_argument("--panels", type=int, default=600)
    parser.add_argument("--first-seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=min(2, multiprocessing.cpu_count()))
    parser.add_argument("--siblings", choices=("independent", "same"), default="independent")
    args = parser.parse_args()
    seeds = range(args.first_seed, args.first_seed + args.seeds)
    with multiprocessing.Pool(args.workers) as pool:
        found = pool.map(run_seed, [(seed, args.panels, args.siblings) for seed in seeds], chunksize=1)
    print(f"{DEFAULT.name.strip('*')}: seeds {seeds.start}–{seeds.stop - 1}, {args.panels} panels\n")
    print(report([shape for world in found for shape in world]))


if __name__ == "__main__":
    main()
