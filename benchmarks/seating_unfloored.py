"""Whether the staleness floor is what keeps near-best under issue 18's bar: the default beside rules with a
longer floor or none at all.

    .venv/bin/python benchmarks/seating_unfloored.py                   # 100 seeds, 3 tosses: about 10 min
    .venv/bin/python benchmarks/seating_unfloored.py --first-seed 101

Issue 18 asks for four bars at once, one of them a worst staleness of 32
panels: every model must sit at least once in about every 30 panels, which
takes about a third of the explorer seats (docs/seating-research.md). Here the same
worlds and verdicts (`seating_sim.py`'s, the gateway's own seating code)
are played by the default with a floor of 45 or 60 panels, by the default
with no floor, and by the classic rules for naming the best (top-two
Thompson, the leader and its challenger every panel, plain Thompson, both
seats to learning) with no floor either, so that every seat goes where the
rule wants it. If near-best stays under 75 % with every seat free, the
floor is not what holds it there.
"""

from __future__ import annotations

from dataclasses import replace

from seating_sim import POLICIES, Policy, beside_default_arguments, play_beside_default, run_seed

DEFAULT = next(policy for policy in POLICIES if "(the default)" in policy.name)
NONE = 1_000_000
"""A floor no model ever reaches in a run: no floor at all."""


def unfloored_rules() -> list[Policy]:
    """The default first, then each variant without the issue's floor."""
    tuning = DEFAULT.tuning
    return [
        replace(DEFAULT, name="the default (floor 30, the bench's size)"),
        replace(DEFAULT, name="the default, floor 45", floor=45),
        replace(DEFAULT, name="the default, floor 60", floor=60),
        replace(DEFAULT, name="the default, no floor", floor=NONE),
        Policy(
            "the default, no floor, the leader at 45 in 100",
            floor=NONE,
            tuning=replace(tuning, leader_share=0.45),
        ),
        Policy(
            "no floor, both seats to learn", floor=NONE, tuning=replace(tuning, leader_share=0.0, early=0)
        ),
        Policy(
            "no floor, the leader and its challenger",
            floor=NONE,
            tuning=replace(tuning, pick="leader", early=0),
        ),
        Policy(
            "no floor, top-two Thompson",
            floor=NONE,
            tuning=replace(tuning, pick="top-two", challenge="thompson", early=0),
        ),
        Policy("no floor, plain Thompson", floor=NONE, tuning=replace(tuning, pick="thompson", early=0)),
    ]


def main() -> None:
    args = beside_default_arguments(__doc__).parse_args()
    policies = tuple(unfloored_rules())
    seeds = range(args.first_seed, args.first_seed + args.seeds)
    jobs = [
        (seed, args.panels, "independent", coins, policies) for seed in seeds for coins in range(args.tosses)
    ]
    play_beside_default(run_seed, jobs, policies, args)


if __name__ == "__main__":
    main()
