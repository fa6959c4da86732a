"""What choosing a panel's seats costs in CPU: the old rule against the evidence rule.

    .venv/bin/python benchmarks/seating_cost.py            # 30 models, 2 explorer seats
    .venv/bin/python benchmarks/seating_cost.py --models 100

The panel path calls `seat_panel` once per panel (twice when a decision
model names the shape); with the evidence rule it also reads the record,
whose book is refitted only when the counts change. This times both, in
this process, on a bench like the one `seating_sim.py` draws: every model
judged on every shape, so the book is as large as it gets. The figures are
microseconds of CPU per call, the median of several rounds.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

from panelgate.core.evidence import Counts, fit_evidence
from panelgate.core.explorer_policy import ExplorerEvidence
from panelgate.core.family import family
from panelgate.core.seating import seat_panel
from panelgate.core.types import CollectionInfo, GatewayLimits, ModelInfo, Shape

SHAPES: tuple[Shape, ...] = ("general", "code", "review", "prose", "quick")
ROUNDS = 7


def per_call_us(work: Callable[[], object], calls: int) -> float:
    """The median over `ROUNDS` of the CPU microseconds one call of `work` takes."""
    rounds = []
    for _ in range(ROUNDS):
        started = time.process_time()
        for _ in range(calls):
            work()
        rounds.append((time.process_time() - started) / calls * 1e6)
    return statistics.median(rounds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", type=int, default=30)
    parser.add_argument("--calls", type=int, default=2000)
    args = parser.parse_args()
    rng = random.Random(1)
    roster = {
        f"m{n}": ModelInfo(alias=f"m{n}", served_id=f"org/fam{n // 2}-{n}", endpoint="up")
        for n in range(args.models)
    }
    counts = {
        (alias, shape): Counts(useful=rng.randint(0, 12), not_useful=rng.randint(0, 12))
        for alias in roster
        for shape in SHAPES
    }
    families = {alias: family(model.served_id) for alias, model in roster.items()}
    unseated = {alias: rng.randint(0, 40) for alias in roster}
    collection = CollectionInfo(name="duo", members=("m0", "m2"))
    limits = GatewayLimits(max_calls=4, max_explorers=2)
    book = fit_evidence(counts, families)
    evidence = ExplorerEvidence(book=book, unseated_for=unseated, rng=rng)

    def seat(with_evidence: bool) -> Callable[[], object]:
        return lambda: seat_panel(
            collection=collection,
            roster=roster,
            limits=limits,
            estimate=500,
            has_images=False,
            nominees=(),
            last_seated={},
            decided=("code", "rules"),
            evidence=evidence if with_evidence else None,
        )

    print(f"{args.models} models, {len(SHAPES)} shapes, 2 explorer seats; µs of CPU per call (median)")
    print("| what | µs |")
    print("|---|---|")
    print(f"| seat_panel, stalest first (the old rule) | {per_call_us(seat(False), args.calls):.0f} |")
    print(f"| seat_panel, evidence rule | {per_call_us(seat(True), args.calls):.0f} |")
    fitting = per_call_us(lambda: fit_evidence(counts, families), max(1, args.calls // 100))
    print(f"| fit_evidence (once per change of the record) | {fitting:.0f} |")


if __name__ == "__main__":
    main()
