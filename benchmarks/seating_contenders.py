"""How often the record would name the best if the rule knew where to look: the default with its seat to learn
given to the truly best few.

    .venv/bin/python benchmarks/seating_contenders.py                       # 100 seeds, 3 tosses: 6–7 minutes
    .venv/bin/python benchmarks/seating_contenders.py --first-seed 101 --tosses 1

The default rule (`core/explorer_policy.py`) spends its seat to learn on the
challenger, the rival most able to overturn the leader by what the record
knows so far. Here that one seat goes instead to the least judged of the
`k` candidates other than the leader that the *hidden* usefulness ranks
best on the panel's shape, which no real rule knows. Everything else is the default's and is played by
the gateway's own seating code in `seating_sim.py`'s worlds, on the same
draws: the floor and its early seats, the second seat (the record's leader,
or the least known), the naming (the highest posterior mean among models
with at least 5 verdicts). The difference from the default is what finding
the contenders costs: how far a better rule for that one seat could go, not
a rule to ship.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace

from seating_sim import POLICIES, Outcome, beside_default_arguments, make_world, play, play_beside_default

import panelgate.core.explorer_policy as explorer_policy

DEFAULT = next(policy for policy in POLICIES if "(the default)" in policy.name)


@contextmanager
def knowing(truth: dict[tuple[str, str], float], top: int) -> Iterator[None]:
    """While inside, the seat to learn goes to the least judged of the `top` candidates truly best on the
    shape, the leader left out (this process only; the rule's own functions are put back on leaving)."""

    def challenger(
        pool: Sequence[str], leader: str, shape: str, evidence: explorer_policy.ExplorerEvidence
    ) -> str:
        rivals = [alias for alias in pool if alias != leader]
        best = sorted(rivals, key=lambda alias: -truth[(alias, shape)])[:top]
        return min(best, key=lambda alias: (evidence.book.counts(alias, shape).judged, alias))

    def always_contested(*_: object) -> bool:
        return True

    kept = explorer_policy._challenger, explorer_policy.may_overturn
    explorer_policy._challenger, explorer_policy.may_overturn = challenger, always_contested
    try:
        yield
    finally:
        explorer_policy._challenger, explorer_policy.may_overturn = kept


def run_seed(job: tuple[int, int, int, tuple[int, ...]]) -> list[Outcome]:
    """The default, then the default knowing each `top`, on one world with one toss of the coins."""
    seed, panels, coins, tops = job
    world = make_world(seed, panels)
    outcomes = [play(world, DEFAULT, seed, coins)[0]]
    for top in tops:
        with knowing(world.truth, top):
            outcomes.append(play(world, DEFAULT, seed, coins)[0])
    return outcomes


def main() -> None:
    parser = beside_default_arguments(__doc__)
    parser.add_argument("--tops", default="1,2,3,5,8", help="how many truly best models the seat may go to")
    args = parser.parse_args()
    tops = tuple(int(top) for top in args.tops.split(","))
    policies = [DEFAULT, *(replace(DEFAULT, name=f"the seat to learn among the true best {k}") for k in tops)]
    seeds = range(args.first_seed, args.first_seed + args.seeds)
    jobs = [(seed, args.panels, coins, tops) for seed in seeds for coins in range(args.tosses)]
    play_beside_default(run_seed, jobs, policies, args)


if __name__ == "__main__":
    main()
