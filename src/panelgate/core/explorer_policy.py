"""Who takes the explorer seats: the record, under a staleness floor.

Explorer seats do two jobs at once: answer well today, and find out which
model is best at each shape of work. Seating the stalest model (the old rule)
does the second job slowly and the first not at all; seating the model with
the best record does the first and stops learning. The default rule (the
one `benchmarks/seating_sim.py` chose; docs/seating.md has its numbers)
fills the open seats of a panel in three steps:

1. **The floor** (`core/explorer_floor.py`): models that must sit now so that
   every model sits at least once in every K panels; and, at most one a
   panel, a model within 8 panels of that deadline whose least-judged shape
   (the most promising of those) is the panel's, so the seats the floor
   forces anyway fill the thinnest records first.
2. **A seat to learn**: the leader is the candidate with the highest posterior
   mean on the panel's shape, the record's current claim to the best; the
   challenger is the other candidate with the highest optimistic estimate
   (posterior mean plus one and a half standard deviations, from a posterior
   that weighs the pooled prior at a fifth, so that what a model has shown on
   the shape, or that it has shown nothing yet, counts for more than the
   average the rest of the record pulls it toward), the one most able to
   overturn that claim (LUCB, Kalyanakrishnan et al. 2012). While the two
   estimates still overlap, the first free seat goes to the challenger; once
   the record has settled them, to the model the record knows least on this
   shape (fewest verdicts; among those, the one nearest its floor deadline),
   so that no model's record on a shape stays empty.
3. **A seat to answer well**: the next seat goes to the leader most of the
   time (`ExplorerTuning.leader_share`), else to the least known model too.
   A panel with only one free seat tosses that same coin between the leader
   and its challenger while the lead is contested, and seats the leader once
   it is settled (the floor still seats everyone else).

Ties go to models on a preferred endpoint: when the record cannot tell the
leader, the challenger or the least known model from another (equal
estimates, equal counts), and among models equally overdue for the floor,
the one on an endpoint marked `preferred` comes first, then the alias.

`ExplorerTuning` also holds the variants the simulation compares (plain
Thompson sampling, top-two Thompson, the challenger followed by Thompson
draws, the leader and the challenger, floor seats only when due or early by
another measure, the least known contender); the randomness
comes from the `random.Random` the caller passes, so seating is reproducible
under a seed.
"""

from __future__ import annotations

import random
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from panelgate.core.evidence import EvidenceBook
from panelgate.core.explorer_floor import EarlyBy, due_now, early_seats, overdue
from panelgate.core.long_prompts import LongPromptTest

CHALLENGER_TRIES = 30
"""Thompson draws a top-two challenger search makes before taking the best non-leader of the last."""

Pick = Literal["learn-and-lead", "challenger", "leader", "top-two", "thompson"]
"""How the free seats are filled: a seat to learn and one mostly for the leader (`learn-and-lead`, the
module's docstring); the challenger then Thompson draws (`challenger`); the leader and the challenger
(`leader`); top-two Thompson, a drawn leader and its challenger (`top-two`); or one plain Thompson draw
(`thompson`)."""

KnownBy = Literal["promise", "deadline"]
"""Among the least known candidates, who goes first: the most promising (`promise`), or the one nearest
its floor deadline (`deadline`), so a seat to learn also keeps the floor and forced seats grow rare."""

Challenge = Literal["optimism", "thompson", "fewest"]
"""How the challenger is found: the highest posterior mean plus `width` standard deviations
(`optimism`), re-drawing until a draw's best is not the leader (`thompson`, Russo 2016), or the least
known of the candidates that may still overturn the leader (`fewest`)."""


@dataclass(frozen=True)
class ExplorerTuning:
    """The knobs of the evidence rule; the defaults are what the simulation chose."""

    pick: Pick = "learn-and-lead"
    challenge: Challenge = "optimism"
    width: float = 1.5
    """Standard deviations of optimism in the challenger's estimate (and of doubt in the leader's): a lead
    counts as settled once the two estimates part by this many deviations each."""
    optimism_prior: float = 0.2
    """The share of the pooled prior's strength in the posterior the challenger's optimism is taken from.
    The whole prior (worth about seven verdicts on a bench like the simulation's, far more on one whose
    models agree) holds a model never judged on a shape, or judged well there a few times, near the
    bench's average, so the seat to learn went to models the record already knew; at a fifth, their
    own verdicts decide how far they might still go. The leader's estimate, its doubt and every ranking
    keep the whole prior. In the simulation (docs/seating-research.md, nine runs) this raised the rank
    correlation by 0.008 at 0.004 of usefulness."""
    leader_share: float = 0.65
    """With `learn-and-lead`: the chance that the seat after the one to learn (or a lone free seat) goes
    to the leader. With `leader` or `top-two` and one free seat: the chance it goes to the leader, not
    the challenger."""
    lone_seat_draw_share: float = 0.5
    """With `challenger` and one free seat: the chance it goes to the Thompson draw (mostly the leader)
    rather than the challenger, so a panel with one explorer seat still seats the record's best."""
    settled_leader_share: float | None = None
    """With `learn-and-lead`: the leader's share of the second seat once its lead is settled (None: as
    `leader_share`)."""
    early: int = 8
    """Panels before its floor deadline a model may take a seat early, when the panel's shape is where
    `early_by` would place it (0: only when due)."""
    early_by: EarlyBy = "thin"
    early_top: int = 1
    """An early seat is on one of the model's best `early_top` shapes by `early_by`."""
    early_cap: int | None = 1
    """Early seats fill at most this many of a panel's seats, counting those the floor forces (None: any
    seat the floor leaves)."""
    known_by: KnownBy = "deadline"
    """How a tie among the least known candidates is broken."""


@dataclass(frozen=True)
class ExplorerEvidence:
    """What the evidence rule needs beside the roster, filled by the store once per snapshot.

    `book` holds every (alias, shape) posterior; `unseated_for` says how many
    panels in a row each alias has not sat (absent: it never sat, and is due
    now); `rng` is the random source of the Thompson draws; `preferred`
    the aliases on an endpoint marked preferred (they win ties);
    `long_prompt` each tested model's newest long-prompt speed test
    (`core/long_prompts.py`).
    """

    book: EvidenceBook
    unseated_for: Mapping[str, int]
    rng: random.Random
    tuning: ExplorerTuning = field(default_factory=ExplorerTuning)
    preferred: frozenset[str] = frozenset()
    long_prompt: Mapping[str, LongPromptTest] = field(default_factory=dict)


def _thompson(pool: Sequence[str], shape: str, book: EvidenceBook, rng: random.Random) -> list[str]:
    """The pool ordered by one draw from each posterior, highest first (continuous draws never tie)."""
    draws = {alias: book.posterior(alias, shape).draw(rng) for alias in pool}
    return sorted(pool, key=lambda alias: -draws[alias])


def optimistic_estimate(alias: str, shape: str, book: EvidenceBook, tuning: ExplorerTuning) -> float:
    """How useful `alias` might still turn out on `shape`: its mean plus `tuning.width` deviations, from
    the posterior that weighs the prior at `tuning.optimism_prior`."""
    hopeful = book.posterior(alias, shape, prior_share=tuning.optimism_prior)
    return hopeful.mean + tuning.width * hopeful.spread


def optimistic_challenger(
    pool: Sequence[str],
    leader: str,
    shape: str,
    book: EvidenceBook,
    tuning: ExplorerTuning,
    preferred: Collection[str] = frozenset(),
) -> str:
    """The candidate other than the leader with the highest `optimistic_estimate`."""

    def optimistic(alias: str) -> tuple[float, bool, str]:
        return (optimistic_estimate(alias, shape, book, tuning), alias in preferred, alias)

    return max((alias for alias in pool if alias != leader), key=optimistic)


def _challenger(pool: Sequence[str], leader: str, shape: str, evidence: ExplorerEvidence) -> str:
    """The candidate most able to overturn the leader's claim to the best."""
    book, tuning, preferred = evidence.book, evidence.tuning, evidence.preferred
    if tuning.challenge == "optimism":
        return optimistic_challenger(pool, leader, shape, book, tuning, preferred)
    if tuning.challenge == "fewest":
        hopeful = [a for a in pool if a != leader and may_overturn(a, leader, shape, book, tuning)]
        return (
            least_known(hopeful, shape, book, preferred=preferred)
            if hopeful
            else optimistic_challenger(pool, leader, shape, book, tuning, preferred)
        )
    draw: list[str] = []
    for _ in range(CHALLENGER_TRIES):
        draw = _thompson(pool, shape, book, evidence.rng)
        if draw[0] != leader:
            return draw[0]
    return next(alias for alias in draw if alias != leader)


def leader_of(
    pool: Sequence[str], shape: str, book: EvidenceBook, preferred: Collection[str] = frozenset()
) -> str:
    """The record's current claim to the best on `shape`: the highest posterior mean."""
    return max(pool, key=lambda alias: (book.posterior(alias, shape).mean, alias in preferred, alias))


def may_overturn(
    challenger: str, leader: str, shape: str, book: EvidenceBook, tuning: ExplorerTuning
) -> bool:
    """The challenger's `optimistic_estimate` still reaches the leader's pessimistic one (its mean less
    `tuning.width` deviations).

    Once they part, the record has settled which of the two is better (LUCB's
    stopping rule), and a seat given to the challenger would only be a worse
    answer: the seat goes to learning about someone else.
    """
    doubted = book.posterior(leader, shape)
    return (
        optimistic_estimate(challenger, shape, book, tuning) >= doubted.mean - tuning.width * doubted.spread
    )


def least_known(
    pool: Sequence[str],
    shape: str,
    book: EvidenceBook,
    unseated_for: Mapping[str, int] | None = None,
    preferred: Collection[str] = frozenset(),
) -> str:
    """The candidate with the fewest verdicts on `shape`; among those, the one nearest its floor
    deadline when `unseated_for` is given (so the seat also keeps the floor), then the most promising,
    then one on a preferred endpoint."""

    def key(alias: str) -> tuple[int, float, float, bool, str]:
        waited = overdue(alias, unseated_for) if unseated_for is not None else 0.0
        judged, mean = book.counts(alias, shape).judged, book.posterior(alias, shape).mean
        return (judged, -waited, -mean, alias not in preferred, alias)

    return min(pool, key=key)


def _learn_and_lead(
    pool: Sequence[str], leader: str, shape: str, seats: int, evidence: ExplorerEvidence
) -> list[str]:
    """The seat to learn (the challenger, else the least known), then the leader or the least known again."""
    book, tuning, preferred = evidence.book, evidence.tuning, evidence.preferred
    waited = evidence.unseated_for if tuning.known_by == "deadline" else None
    others = [alias for alias in pool if alias != leader]
    challenger = _challenger(pool, leader, shape, evidence)
    contested = may_overturn(challenger, leader, shape, book, tuning)
    learn = challenger if contested else least_known(others, shape, book, waited, preferred)
    share = tuning.leader_share
    if not contested and tuning.settled_leader_share is not None:
        share = tuning.settled_leader_share
    leads = evidence.rng.random() < share
    if seats == 1:  # one seat: the leader, or its challenger while its lead is contested
        return [leader if leads or not contested else challenger]
    rest = [alias for alias in others if alias != learn]
    return [learn, leader if leads or not rest else least_known(rest, shape, book, waited, preferred)]


def _free_seats(pool: Sequence[str], shape: str, seats: int, evidence: ExplorerEvidence) -> list[str]:
    """Every candidate, in the order the pick rule would seat them in `seats` free seats."""
    book, rng, tuning = evidence.book, evidence.rng, evidence.tuning
    drawn = _thompson(pool, shape, book, rng)
    if tuning.pick == "thompson" or len(pool) < 2:
        return drawn
    leader = drawn[0] if tuning.pick == "top-two" else leader_of(pool, shape, book, evidence.preferred)
    if tuning.pick == "learn-and-lead":
        chosen = _learn_and_lead(pool, leader, shape, seats, evidence)
        return [*chosen, *(alias for alias in drawn if alias not in chosen)]
    if tuning.pick == "challenger" and seats == 1 and rng.random() < tuning.lone_seat_draw_share:
        return drawn
    challenger = _challenger(pool, leader, shape, evidence)
    if tuning.pick == "challenger":
        if not may_overturn(challenger, leader, shape, book, tuning):
            return drawn
        return [challenger, *(alias for alias in drawn if alias != challenger)]
    pair = [leader, challenger]
    if seats == 1 and rng.random() >= tuning.leader_share:
        pair.reverse()
    return [*pair, *(alias for alias in drawn if alias not in pair)]


def floor_seats(
    pool: Sequence[str],
    *,
    shape: str,
    seats: int,
    floor: int,
    book: EvidenceBook,
    unseated_for: Mapping[str, int],
    tuning: ExplorerTuning,
    preferred: Collection[str] = frozenset(),
) -> tuple[list[str], list[str]]:
    """The floor's seats on this panel: the models due now, then those `tuning` lets sit early (no more
    than its cap leaves)."""
    due = due_now(pool, unseated_for, floor, seats, preferred)
    room = (seats if tuning.early_cap is None else min(seats, tuning.early_cap)) - len(due)
    if room <= 0:  # the floor fills what early seats may take
        return due, []
    early = early_seats(
        [alias for alias in pool if alias not in due],
        shape=shape,
        book=book,
        unseated_for=unseated_for,
        floor=floor,
        window=tuning.early,
        by=tuning.early_by,
        top=tuning.early_top,
    )[:room]
    return due, early


def explorer_order(
    pool: Sequence[str], *, shape: str, seats: int, floor: int, evidence: ExplorerEvidence
) -> list[str]:
    """The candidates for `seats` open explorer seats on a `shape` panel, first choice first.

    `pool` holds only models every fit rule allows; the caller walks the
    order and skips a model whose family already sits.
    """
    due, early = floor_seats(
        pool,
        shape=shape,
        seats=seats,
        floor=floor,
        book=evidence.book,
        unseated_for=evidence.unseated_for,
        tuning=evidence.tuning,
        preferred=evidence.preferred,
    )
    chosen = [*due, *early]
    rest = [alias for alias in pool if alias not in chosen]
    return [*chosen, *(_free_seats(rest, shape, seats - len(chosen), evidence) if rest else [])]
