"""Who takes the explorer seats: the record, under a staleness floor.

Explorer seats do two jobs at once: answer well today, and find out which
model is best at each shape of work. Seating the stalest model (the old rule)
does the second job slowly and the first not at all; seating the model with
the best record does the first and stops learning. The default rule (the
one `benchmarks/seating_sim.py` chose; docs/seating.md has its numbers)
orders the candidates for the open seats of a panel in three steps:

1. **The floor** (`core/explorer_floor.py`): models that must sit now so that
   every model sits at least once in every K panels.
2. **The challenger**: the leader is the candidate with the highest
   posterior mean on the panel's shape, the record's current claim to the
   best; the challenger is the other candidate with the highest optimistic
   estimate (posterior mean plus one standard deviation), the one most able
   to overturn that claim (LUCB, Kalyanakrishnan et al. 2012). The first free
   seat goes to it.
3. **Thompson sampling** for the rest: a plausible usefulness is drawn for
   each candidate from its posterior and the highest draws sit. The leader
   usually wins the draw; a model with little evidence wins it now and then,
   so the record keeps learning about everyone.

`ExplorerTuning` holds the variants the simulation compares (plain
Thompson, top-two Thompson, leader plus challenger, early floor seats); the
randomness comes from the `random.Random` the caller passes, so seating is
reproducible under a seed.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from panelgate.core.evidence import EvidenceBook
from panelgate.core.explorer_floor import EarlyBy, due_now, early_seats

CHALLENGER_TRIES = 30
"""Thompson draws a top-two challenger search makes before taking the best non-leader of the last."""

Pick = Literal["challenger", "leader", "top-two", "thompson"]
"""How the free seats are filled: the challenger then Thompson draws (`challenger`); the leader and
the challenger (`leader`); top-two Thompson, a drawn leader and its challenger (`top-two`); or one
plain Thompson draw (`thompson`)."""

Challenge = Literal["optimism", "thompson"]
"""How the challenger is found: the highest posterior mean plus `width` standard deviations
(`optimism`), or re-drawing until a draw's best is not the leader (`thompson`, Russo 2016)."""


@dataclass(frozen=True)
class ExplorerTuning:
    """The knobs of the evidence rule; the defaults are what the simulation chose."""

    pick: Pick = "challenger"
    challenge: Challenge = "optimism"
    width: float = 1.0
    """Standard deviations of optimism in the challenger's estimate."""
    leader_share: float = 0.0
    """With `leader` or `top-two` and one free seat: the chance it goes to the leader, not the challenger."""
    lone_seat_draw_share: float = 0.5
    """With `challenger` and one free seat: the chance it goes to the Thompson draw (mostly the leader)
    rather than the challenger, so a panel with one explorer seat still seats the record's best."""
    early: int = 0
    """Panels before its floor deadline a model may take a seat early on a good shape (0: only when due)."""
    early_by: EarlyBy = "gap"
    early_top: int = 1
    """An early seat is on one of the model's best `early_top` shapes by `early_by`."""


@dataclass(frozen=True)
class ExplorerEvidence:
    """What the evidence rule needs beside the roster, filled by the store once per snapshot.

    `book` holds every (alias, shape) posterior; `unseated_for` says how many
    panels in a row each alias has not sat (absent: it never sat, and is due
    now); `rng` is the random source of the Thompson draws.
    """

    book: EvidenceBook
    unseated_for: Mapping[str, int]
    rng: random.Random
    tuning: ExplorerTuning = field(default_factory=ExplorerTuning)


def _thompson(pool: Sequence[str], shape: str, book: EvidenceBook, rng: random.Random) -> list[str]:
    """The pool ordered by one draw from each posterior, highest first."""
    draws = {alias: book.posterior(alias, shape).draw(rng) for alias in pool}
    return sorted(pool, key=lambda alias: -draws[alias])


def _challenger(pool: Sequence[str], leader: str, shape: str, evidence: ExplorerEvidence) -> str:
    """The candidate most able to overturn the leader's claim to the best."""
    book, tuning = evidence.book, evidence.tuning
    if tuning.challenge == "optimism":

        def optimistic(alias: str) -> float:
            posterior = book.posterior(alias, shape)
            return posterior.mean + tuning.width * posterior.spread

        return max((alias for alias in pool if alias != leader), key=lambda alias: (optimistic(alias), alias))
    draw: list[str] = []
    for _ in range(CHALLENGER_TRIES):
        draw = _thompson(pool, shape, book, evidence.rng)
        if draw[0] != leader:
            return draw[0]
    return next(alias for alias in draw if alias != leader)


def _may_overturn(challenger: str, leader: str, shape: str, evidence: ExplorerEvidence) -> bool:
    """The challenger's optimistic estimate still reaches the leader's pessimistic one.

    Once they part, the record has settled which of the two is better (LUCB's
    stopping rule), and a seat given to the challenger would only be a worse
    answer: the free seats go by Thompson draws instead.
    """
    width = evidence.tuning.width
    hopeful, doubted = evidence.book.posterior(challenger, shape), evidence.book.posterior(leader, shape)
    return hopeful.mean + width * hopeful.spread >= doubted.mean - width * doubted.spread


def _free_seats(pool: Sequence[str], shape: str, seats: int, evidence: ExplorerEvidence) -> list[str]:
    """Every candidate, in the order the pick rule would seat them in `seats` free seats."""
    book, rng, tuning = evidence.book, evidence.rng, evidence.tuning
    drawn = _thompson(pool, shape, book, rng)
    if tuning.pick == "thompson" or len(pool) < 2:
        return drawn
    if tuning.pick == "top-two":
        leader = drawn[0]
    else:
        leader = max(pool, key=lambda alias: (book.posterior(alias, shape).mean, alias))
    if tuning.pick == "challenger" and seats == 1 and rng.random() < tuning.lone_seat_draw_share:
        return drawn
    challenger = _challenger(pool, leader, shape, evidence)
    if tuning.pick == "challenger":
        if not _may_overturn(challenger, leader, shape, evidence):
            return drawn
        return [challenger, *(alias for alias in drawn if alias != challenger)]
    pair = [leader, challenger]
    if seats == 1 and rng.random() >= tuning.leader_share:
        pair.reverse()
    return [*pair, *(alias for alias in drawn if alias not in pair)]


def explorer_order(
    pool: Sequence[str], *, shape: str, seats: int, floor: int, evidence: ExplorerEvidence
) -> list[str]:
    """The candidates for `seats` open explorer seats on a `shape` panel, first choice first.

    `pool` holds only models every fit rule allows; the caller walks the
    order and skips a model whose family already sits.
    """
    tuning = evidence.tuning
    due = due_now(pool, evidence.unseated_for, floor, seats)
    early = early_seats(
        [alias for alias in pool if alias not in due],
        shape=shape,
        book=evidence.book,
        unseated_for=evidence.unseated_for,
        floor=floor,
        window=tuning.early,
        by=tuning.early_by,
        top=tuning.early_top,
    )[: max(0, seats - len(due))]
    chosen = [*due, *early]
    rest = [alias for alias in pool if alias not in chosen]
    return [*chosen, *(_free_seats(rest, shape, seats - len(chosen), evidence) if rest else [])]
