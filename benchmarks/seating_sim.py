"""How well explorer rules learn: the real seating code in a synthetic world (issue 18, part 7).

    .venv/bin/python benchmarks/seating_sim.py                  # 100 seeds × 600 panels, 15 rules: 7 minutes
    .venv/bin/python benchmarks/seating_sim.py --seeds 10 --panels 300
    .venv/bin/python benchmarks/seating_sim.py --siblings same    # siblings share their family's usefulness
    .venv/bin/python benchmarks/seating_sim.py --coins 1          # the same worlds, other coin tosses
    .venv/bin/python benchmarks/seating_sim.py --tosses 3         # each world thrice (coins 0-2), the means
    .venv/bin/python benchmarks/seating_sim.py --against "the default)"  # each rule beside the default

The world, drawn afresh for each seed: 30 models in families of 1–3 (siblings
share a served id's last segment, so `core/family.py` groups them); 5 shapes
(general, design, prose, review, code); the hidden usefulness of each model
on each shape drawn from Beta(2, 3), except 3 "strong" models at about 0.8 on
2 random shapes each; a collection of 2 members from families holding no
strong model, with 2 explorer seats. Siblings' usefulness is drawn apart, as
issue 18 specifies; `--siblings same` gives each sibling its family's instead
(give or take `HOST_SPREAD`), as a family is defined: the same weights served
elsewhere. Each panel has a uniformly random shape;
`panelgate.core.seating.seat_panel` seats it (members, explorers, every fit
rule), each seat's answer is judged with probability 0.6 and useful with its
hidden probability, and the verdicts land before the next panel. Every policy
sees the same draws: the same shapes, and the same judgement for a model on a
panel, so the differences between rows are the rules' and their own coins'
(Thompson draws, the leader's coin), not the worlds'; on 100 worlds the
coins alone move near-best by up to 5 points and the rank correlation by up
to 0.012, which `--tosses` averages down.

Reported per policy (means over seeds, and over tosses with `--tosses`, unless said):

- **explorer usefulness**: the hidden usefulness of the models in explorer seats;
- **worst staleness**: the longest run of panels any model free to explore went
  unseated, worst over every seed;
- **near-best @N**: share of (seed, shape) where the model the record names
  best after N panels (highest posterior mean among models with at least 5
  verdicts on the shape) is within 0.05 of the true best model that could sit;
- **Spearman**: rank correlation of posterior mean with the hidden usefulness
  over the models that could sit on a shape, per (seed, shape), after the
  last panel (and pooled over a seed's shapes).

With `--against NAME`, a second table gives each rule's difference from the
rule whose name holds NAME, world by world: every rule plays the same worlds,
so the difference varies far less from world to world than either figure,
and its margin (1.96 standard errors of the mean difference over the worlds,
each world's tosses averaged first) says whether 100 worlds tell the two
rules apart. The reference's own row gives its figures with their margins.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import random
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any, Literal

from panelgate.core.evidence import Counts, EvidenceBook, fit_evidence
from panelgate.core.explorer_policy import ExplorerEvidence, ExplorerTuning
from panelgate.core.family import family
from panelgate.core.seating import seat_panel
from panelgate.core.types import CollectionInfo, ExplorerRule, GatewayLimits, ModelInfo, Shape

SHAPES: tuple[Shape, ...] = ("general", "design", "prose", "review", "code")
MODELS = 30
STRONG_MODELS = 3
STRONG_SHAPES = 2
JUDGED = 0.6
NEAR = 0.05
MIN_VERDICTS = 5
CHECKPOINTS = (150, 300, 600)
START = datetime(2026, 1, 1)
HOST_SPREAD = 0.03
"""With `--siblings same`: how far a sibling's usefulness strays from its family's (a standard deviation)."""
Siblings = Literal["independent", "same"]


@dataclass(frozen=True)
class Policy:
    name: str
    rule: ExplorerRule = "evidence"
    floor: int = 0
    tuning: ExplorerTuning = field(default_factory=ExplorerTuning)


BEFORE = ExplorerTuning(width=2.0, optimism_prior=1.0, leader_share=0.6)
"""The challenger's optimism from the whole prior at two deviations, the leader at 6 in 10: what every
rule below but the default was tried with, and the default before 2026-12-04."""


def tried(**knobs: Any) -> ExplorerTuning:
    return replace(BEFORE, **knobs)


WHEN_DUE = tried(early=0, early_cap=None, known_by="promise")
"""Floor seats only when due, ties among the least known to the most promising: how the rules below
were first tried, and the default before 2026-12-03."""


def when_due(**knobs: Any) -> ExplorerTuning:
    return replace(WHEN_DUE, **knobs)


POLICIES: tuple[Policy, ...] = (
    Policy("stalest first (the old rule)", rule="stalest"),
    Policy("Thompson + floor 30", floor=30, tuning=when_due(pick="thompson")),
    Policy("top-two Thompson + floor", tuning=when_due(pick="top-two", challenge="thompson")),
    Policy(
        "top-two Thompson, early floor seats",
        tuning=when_due(pick="top-two", challenge="thompson", early=3, early_by="gap"),
    ),
    Policy("leader + top-two challenger", tuning=when_due(pick="leader", challenge="thompson")),
    Policy("leader + optimistic challenger", tuning=when_due(pick="leader", width=1.0)),
    Policy(
        "Thompson, early floor seats by fewest verdicts",
        tuning=when_due(pick="thompson", early=8, early_by="spread"),
    ),
    Policy("challenger + Thompson (the first evidence rule)", tuning=when_due(pick="challenger", width=1.0)),
    Policy("learn and lead, one standard deviation", tuning=when_due(width=1.0)),
    Policy("learn and lead, floor seats only when due", tuning=when_due()),
    Policy("learn and lead, early floor seats where least known", tuning=tried(early_by="spread")),
    Policy(
        "the same, leader 5 in 10 while contested, 9 in 10 once settled",
        tuning=tried(early_by="spread", leader_share=0.5, settled_leader_share=0.9),
    ),
    Policy("learn and lead, least known contender", tuning=when_due(challenge="fewest")),
    Policy("learn and lead, early floor seats on the thinnest record (the previous default)", tuning=BEFORE),
    Policy("**the same, the challenger's optimism from its own verdicts (the default)**"),
)


@dataclass
class World:
    roster: dict[str, ModelInfo]
    truth: dict[tuple[str, str], float]
    members: tuple[str, ...]
    free: tuple[str, ...]
    """Models that may explore: not of a member's family."""
    shapes: list[Shape]
    judged: list[dict[str, float]]
    useful: list[dict[str, float]]


def make_world(seed: int, panels: int, siblings: Siblings = "independent") -> World:
    rng = random.Random(seed)
    sizes: list[int] = []
    while sum(sizes) < MODELS:
        sizes.append(min(rng.randint(1, 3), MODELS - sum(sizes)))
    roster: dict[str, ModelInfo] = {}
    for kin, size in enumerate(sizes):
        for sibling in range(size):
            alias = f"m{len(roster):02d}"
            roster[alias] = ModelInfo(alias=alias, served_id=f"host{sibling}/model-{kin}", endpoint="sim")
    aliases = list(roster)
    truth = {(a, s): rng.betavariate(2, 3) for a in aliases for s in SHAPES}
    strong = rng.sample(aliases, STRONG_MODELS)
    for alias in strong:
        for shape in rng.sample(SHAPES, STRONG_SHAPES):
            truth[(alias, shape)] = rng.uniform(0.77, 0.83)
    kin_of = {a: family(m.served_id) for a, m in roster.items()}
    if siblings == "same":
        _share_weights(truth, kin_of, strong, random.Random(seed * 31 + 7))
    strong_kin = {kin_of[a] for a in strong}
    plain = [a for a in aliases if kin_of[a] not in strong_kin]
    first = rng.choice(plain)
    second = rng.choice([a for a in plain if kin_of[a] != kin_of[first]])
    members = (first, second)
    member_kin = {kin_of[first], kin_of[second]}
    free = tuple(a for a in aliases if kin_of[a] not in member_kin)
    shapes = [rng.choice(SHAPES) for _ in range(panels)]
    judged = [{a: rng.random() for a in aliases} for _ in range(panels)]
    useful = [{a: rng.random() for a in aliases} for _ in range(panels)]
    return World(roster, truth, members, free, shapes, judged, useful)


def _share_weights(
    truth: dict[tuple[str, str], float], kin_of: dict[str, str], strong: list[str], rng: random.Random
) -> None:
    """Siblings serve the same weights: each takes its family's usefulness (a strong member's, when the
    family has one) give or take `HOST_SPREAD` for the host (quantisation, serving settings)."""
    head: dict[str, str] = {}
    for alias in sorted(kin_of):
        kin = kin_of[alias]
        if kin not in head or (alias in strong and head[kin] not in strong):
            head[kin] = alias
    for alias, shape in sorted(truth):
        source = head[kin_of[alias]]
        if source != alias:
            shared = truth[(source, shape)] + rng.gauss(0.0, HOST_SPREAD)
            truth[(alias, shape)] = min(0.99, max(0.01, shared))


def spearman(xs: Sequence[float], ys: Sequence[float]) -> float:
    def ranks(values: Sequence[float]) -> list[float]:
        order = sorted(range(len(values)), key=lambda i: values[i])
        result = [0.0] * len(values)
        i = 0
        while i < len(order):
            j = i
            while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
                j += 1
            for k in range(i, j + 1):
                result[order[k]] = (i + j) / 2.0
            i = j + 1
        return result

    rx, ry = ranks(xs), ranks(ys)
    mx, my = statistics.fmean(rx), statistics.fmean(ry)
    cov = sum((a - mx) * (b - my) for a, b in zip(rx, ry, strict=True))
    sx = math.sqrt(sum((a - mx) ** 2 for a in rx))
    sy = math.sqrt(sum((b - my) ** 2 for b in ry))
    return cov / (sx * sy) if sx and sy else 0.0


@dataclass
class Outcome:
    explorer_useful: list[float] = field(default_factory=list)
    worst_staleness: int = 0
    near_best: dict[int, list[bool]] = field(default_factory=dict)
    spearman_shape: list[float] = field(default_factory=list)
    spearman_pooled: float = 0.0
    spearman_known: float = 0.0


def _score(world: World, book: EvidenceBook, outcome: Outcome, panel: int) -> None:
    sitters = (*world.members, *world.free)
    for shape in SHAPES:
        best = max(world.truth[(a, shape)] for a in sitters)
        known = [a for a in sitters if book.counts(a, shape).judged >= MIN_VERDICTS]
        named = max(known, key=lambda a: book.posterior(a, shape).mean) if known else None
        hit = named is not None and world.truth[(named, shape)] >= best - NEAR
        outcome.near_best.setdefault(panel, []).append(hit)


COINS_STEP = 1_000_003
"""How far apart the rules' random sources of two `--coins` values start."""


def play(world: World, policy: Policy, seed: int, coins: int = 0) -> tuple[Outcome, EvidenceBook]:
    """Seat and judge every panel of `world` under `policy`: what was measured, and the record at the end.

    The rule's own random source (its Thompson draws and coins) starts from
    `seed` and `coins`: another `coins` replays the same world and verdicts
    with other tosses."""
    limits = GatewayLimits(
        max_calls=4, max_explorers=2, explorer_rule=policy.rule, explorer_floor=policy.floor
    )
    families = {a: family(m.served_id) for a, m in world.roster.items()}
    counts: dict[tuple[str, str], Counts] = {}
    last_panel: dict[str, int] = {}
    last_seated: dict[str, datetime | None] = {}
    worst = 0
    rng = random.Random(seed * 7919 + 1 + coins * COINS_STEP)
    outcome = Outcome()
    panels = len(world.shapes)
    book = fit_evidence(counts, families)
    for panel, shape in enumerate(world.shapes):
        evidence = ExplorerEvidence(
            book=book,
            unseated_for={a: panel - 1 - p for a, p in last_panel.items()},
            rng=rng,
            tuning=policy.tuning,
        )
        plan = seat_panel(
            collection=CollectionInfo(name="sim", members=world.members, shape=shape),
            roster=world.roster,
            limits=limits,
            estimate=100,
            has_images=False,
            nominees=(),
            last_seated=last_seated,
            evidence=evidence,
        )
        for seat in plan.seats:
            alias = seat.alias
            if seat.kind == "explorer":
                outcome.explorer_useful.append(world.truth[(alias, shape)])
            worst = max(worst, panel - last_panel.get(alias, -1) - 1) if alias in world.free else worst
            last_panel[alias] = panel
            last_seated[alias] = START + timedelta(minutes=panel)
            if world.judged[panel][alias] < JUDGED:
                cell = counts.get((alias, shape), Counts())
                good = world.useful[panel][alias] < world.truth[(alias, shape)]
                counts[(alias, shape)] = cell + (Counts(useful=1) if good else Counts(not_useful=1))
        book = fit_evidence(counts, families)
        if panel + 1 in CHECKPOINTS or panel + 1 == panels:
            _score(world, book, outcome, panel + 1)
    for alias in world.free:
        worst = max(worst, panels - last_panel.get(alias, -1) - 1)
    outcome.worst_staleness = worst
    sitters = (*world.members, *world.free)
    pooled_x: list[float] = []
    pooled_y: list[float] = []
    for shape in SHAPES:
        xs = [book.posterior(a, shape).mean for a in sitters]
        ys = [world.truth[(a, shape)] for a in sitters]
        outcome.spearman_shape.append(spearman(xs, ys))
        pooled_x += xs
        pooled_y += ys
    outcome.spearman_pooled = spearman(pooled_x, pooled_y)
    known = [(a, s) for a in sitters for s in SHAPES if book.counts(a, s).judged >= MIN_VERDICTS]
    outcome.spearman_known = spearman(
        [book.posterior(a, s).mean for a, s in known], [world.truth[cell] for cell in known]
    )
    return outcome, book


def run_seed(job: tuple[int, int, Siblings, int, tuple[Policy, ...]]) -> list[Outcome]:
    seed, panels, siblings, coins, policies = job
    world = make_world(seed, panels, siblings)
    return [play(world, policy, seed, coins)[0] for policy in policies]


def report(policies: Sequence[Policy], results: list[list[Outcome]], panels: int) -> str:
    checkpoints = [c for c in CHECKPOINTS if c < panels] + [panels]
    head = ["policy", "explorer usefulness", "worst staleness", *(f"near-best @{c}" for c in checkpoints)]
    head += ["Spearman (per shape)", "Spearman (pooled)", "Spearman (≥5 verdicts)"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for k, policy in enumerate(policies):
        rows = [seed[k] for seed in results]
        useful = statistics.fmean(u for r in rows for u in r.explorer_useful)
        worst = max(r.worst_staleness for r in rows)
        near = [statistics.fmean(hit for r in rows for hit in r.near_best[c]) for c in checkpoints]
        rho = statistics.fmean(x for r in rows for x in r.spearman_shape)
        pooled = statistics.fmean(r.spearman_pooled for r in rows)
        known = statistics.fmean(r.spearman_known for r in rows)
        cells = [policy.name, f"{useful:.3f}", f"{worst}", *(f"{n:.1%}" for n in near)]
        cells += [f"{rho:.3f}", f"{pooled:.3f}", f"{known:.3f}"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


Measures = tuple[float, float, float]
"""One world's explorer usefulness, near-best at the last panel and Spearman per shape."""


def world_means(rows: Sequence[Outcome], tosses: int, panels: int) -> list[Measures]:
    """Per world, its tosses averaged; `rows` are one rule's outcomes, world after world, each world's
    tosses together (the order of the jobs)."""
    worlds = [rows[start : start + tosses] for start in range(0, len(rows), tosses)]
    return [
        (
            statistics.fmean(statistics.fmean(toss.explorer_useful) for toss in world),
            statistics.fmean(statistics.fmean(toss.near_best[panels]) for toss in world),
            statistics.fmean(statistics.fmean(toss.spearman_shape) for toss in world),
        )
        for world in worlds
    ]


def margin(values: Sequence[float]) -> float:
    """1.96 standard errors of the mean of `values`."""
    return 1.96 * statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else float("nan")


def paired_report(
    policies: Sequence[Policy], results: list[list[Outcome]], reference: int, tosses: int, panels: int
) -> str:
    """Each rule's difference from `policies[reference]`, world by world, with its margin."""
    means = [world_means([job[k] for job in results], tosses, panels) for k in range(len(policies))]
    scales = (1.0, 100.0, 1.0)
    places = (3, 1, 3)
    head = ["policy", "explorer usefulness", f"near-best @{panels} (points)", "Spearman (per shape)"]
    lines = [
        f"Beside {policies[reference].name}, over the same {len(means[reference])} worlds (± 1.96 standard"
        " errors of the mean difference; the reference's row: its own figures and margins)",
        "",
        "| " + " | ".join(head) + " |",
        "|" + "---|" * len(head),
    ]
    for k, policy in enumerate(policies):
        cells = [policy.name]
        for measure, (scale, digits) in enumerate(zip(scales, places, strict=True)):
            ours = [world[measure] * scale for world in means[k]]
            if k == reference:
                cells.append(f"{statistics.fmean(ours):.{digits}f} ± {margin(ours):.{digits}f}")
                continue
            gaps = [a - b[measure] * scale for a, b in zip(ours, means[reference], strict=True)]
            cells.append(f"{statistics.fmean(gaps):+.{digits}f} ± {margin(gaps):.{digits}f}")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def beside_default_arguments(description: str) -> argparse.ArgumentParser:
    """The options of a script that plays the default beside a variant of it (`seating_contenders.py`,
    `seating_true_prior.py`): which worlds, how long, how many tosses."""
    parser = argparse.ArgumentParser(description=description.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=100)
    parser.add_argument("--first-seed", type=int, default=1)
    parser.add_argument("--panels", type=int, default=600)
    parser.add_argument("--tosses", type=int, default=3, help="coins 0, 1, … per world, averaged")
    return parser


def play_beside_default(
    run_seed: Callable[[Any], list[Outcome]], jobs: Sequence[Any], policies: Sequence[Policy], args: Any
) -> None:
    """Play `jobs` (world after world, each world's tosses together) on two cores and print each
    policy's figures, then each one's difference from the first, world by world."""
    began = time.monotonic()
    with multiprocessing.Pool(2) as pool:
        results = pool.map(run_seed, jobs, chunksize=1)
    print(f"{args.seeds} seeds from {args.first_seed} × {args.panels} panels, {args.tosses} tosses, ", end="")
    print(f"{time.monotonic() - began:.0f} s\n")
    print(report(policies, results, args.panels) + "\n")
    print(paired_report(policies, results, 0, args.tosses, args.panels))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=100, help="worlds to draw (default 100)")
    parser.add_argument("--panels", type=int, default=600, help="panels per world (default 600)")
    parser.add_argument("--first-seed", type=int, default=1)
    parser.add_argument(
        "--coins",
        type=int,
        default=0,
        help="another value replays the same worlds and verdicts with other tosses of the rules' own coins",
    )
    parser.add_argument(
        "--tosses",
        type=int,
        default=1,
        help="play each world this many times, with coins --coins, --coins + 1, …, and report the means",
    )
    parser.add_argument("--workers", type=int, default=min(2, multiprocessing.cpu_count()))
    parser.add_argument(
        "--siblings",
        choices=("independent", "same"),
        default="independent",
        help="siblings' hidden usefulness: drawn apart (default, issue 18's world) or the family's, give or "
        "take the host",
    )
    parser.add_argument("--only", default="", help="run only the policies whose name contains this")
    parser.add_argument(
        "--against", default="", help="also give each rule's difference from the rule whose name holds this"
    )
    args = parser.parse_args()
    policies = tuple(p for p in POLICIES if args.only.lower() in p.name.lower())
    against = [k for k, p in enumerate(policies) if args.against and args.against.lower() in p.name.lower()]
    if args.against and len(against) != 1:
        parser.error(f"--against must name one of the rules run; {len(against)} match {args.against!r}")
    seeds = range(args.first_seed, args.first_seed + args.seeds)
    tosses = range(args.coins, args.coins + args.tosses)
    jobs = [(seed, args.panels, args.siblings, coins, policies) for seed in seeds for coins in tosses]
    began = time.monotonic()
    with multiprocessing.Pool(args.workers) as pool:
        results = pool.map(run_seed, jobs, chunksize=1)
    took = time.monotonic() - began
    coins = f"coins {args.coins}" if args.tosses == 1 else f"coins {tosses.start}–{tosses.stop - 1}, means"
    world = f"{args.seeds} seeds × {args.panels} panels, siblings {args.siblings}, {coins}"
    print(f"{world}, {len(policies)} policies, {took:.0f} s\n")
    print(report(policies, results, args.panels))
    if against:
        print("\n" + paired_report(policies, results, against[0], args.tosses, args.panels))


if __name__ == "__main__":
    main()
