"""Who the explorer seats go to next, and why: the explorer rule's order, shown without its dice.

The Record page and `GET /api/record` show, per shape, the candidates for
explorer seats in the order the evidence rule (`core/explorer_policy.py`)
would seat them on the next panel, each with the reason it stands there:

- **due**: the staleness floor makes it sit now (`core/explorer_floor.py`);
- **early**: near its floor deadline, on the shape its record knows least
  (`ExplorerTuning.early`, at most one such seat a panel);
- **challenger**: the candidate most able to overturn the leader, while its
  optimistic estimate (mean plus `ExplorerTuning.width` standard deviations,
  two by default) still reaches the leader's pessimistic one (mean minus as
  many): it takes the seat to learn;
- **least known**: once the leader's lead is settled, the seat to learn goes
  to the model with the fewest verdicts on the shape (the one nearest its
  floor deadline among equals); the next least known sits when the leader's
  coin (`ExplorerTuning.leader_share`) says no;
- **leader**: the best posterior mean among the rest;
- **few verdicts** / **behind**: the rest, by mean; they sit when the floor
  makes them due or they become the least known.

The leader's seat is a coin toss, and the rule's tail (past the seats it
fills) is a Thompson draw; the preview shows the order without the dice.
Under the old rule (`stalest`) the order is simply the longest unseated
first.

Pure: the engine gathers the bench, the book and the seating clock
(`engine/explorer_preview.py`). Who may explore is restated here from
`core/seating.py` (less what only a request knows: its size, a cool-down),
saying so; the bench size and the explorer rule's own steps (leader,
challenger, least known) are the rule's public functions, so they cannot
drift.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from panelgate.core.evidence import EvidenceBook
from panelgate.core.explorer_floor import overdue
from panelgate.core.explorer_policy import (
    ExplorerTuning,
    floor_seats,
    leader_of,
    least_known,
    may_overturn,
    optimistic_challenger,
)
from panelgate.core.family import family
from panelgate.core.shapes import ROLES_FOR_SHAPE
from panelgate.core.types import ExplorerRule, ModelInfo

TUNING = ExplorerTuning()
"""The rule's knobs as seating sets them (its defaults): the challenger's optimism, early seats."""

WIDE_INTERVAL = 0.4
"""A 90 % interval at least this wide (40 points: about a dozen verdicts or fewer) is "few verdicts"."""

Reason = Literal["due", "early", "challenger", "least known", "leader", "few verdicts", "behind", "stalest"]


@dataclass(frozen=True)
class NextExplorer:
    """One candidate for an explorer seat, where the rule puts it and why."""

    alias: str
    reason: Reason
    why: str
    mean: float
    """Its posterior mean on the shape."""
    next_panel: bool = False
    """True when it takes one of the next panel's explorer seats (the order walked, one per family)."""


@dataclass(frozen=True)
class ShapePreview:
    """The explorer seats of the next panel on one shape."""

    shape: str
    seats: int
    """Explorer seats a panel has (0: the gateway seats none)."""
    floor: int
    """K: every model that may explore sits at least once in every K panels."""
    rule: ExplorerRule
    candidates: tuple[NextExplorer, ...]


def _admits(shape: str, role: str) -> bool:
    """`core.shapes.admits` for a shape read back from the store as text (an unknown one admits none)."""
    return any(on == shape and role in roles for on, roles in ROLES_FOR_SHAPE.items())


def may_explore(model: ModelInfo, shape: str) -> bool:
    """Whether the model may take an explorer seat on a `shape` panel of text (images on `vision`).

    Mirrors `core/seating.py`'s `_may_explore` and `answer_problem`, less
    what only a request knows (its size) and what passes within minutes
    (a cool-down after a rate limit).
    """
    return (
        not model.retired
        and model.available
        and not model.ad_hoc
        and not model.held
        and _admits(shape, model.role)
        and model.role != "image"
        and (shape != "vision" or model.vision is True)
    )


def explorer_pool(roster: Mapping[str, ModelInfo], shape: str, taken: Collection[str] = ()) -> list[str]:
    """The candidates on `shape`: models that may explore, not `taken` (a collection's members and
    merger) nor of a taken model's family."""
    kin = {family(roster[alias].served_id) for alias in taken if alias in roster}
    return [
        alias
        for alias, model in roster.items()
        if alias not in taken and family(model.served_id) not in kin and may_explore(model, shape)
    ]


def _unseated_words(alias: str, unseated_for: Mapping[str, int]) -> str:
    if alias not in unseated_for:
        return "never seated"
    panels = unseated_for[alias]
    return f"unseated for {panels} panel{'' if panels == 1 else 's'}"


def _by_estimate(
    rest: Sequence[str],
    shape: str,
    seats: int,
    book: EvidenceBook,
    tuning: ExplorerTuning,
    waited: Mapping[str, int] | None,
) -> list[NextExplorer]:
    """The free seats' candidates as `learn-and-lead` fills them: the seat to learn (the challenger
    while it may overturn the leader, else the least known), the leader, the next least known (who
    sits when the leader does not), then the rest by mean. With one free seat: the challenger and the
    leader while the lead is contested, else the leader."""
    mean = {alias: book.posterior(alias, shape).mean for alias in rest}
    if not rest:
        return []
    leader = leader_of(rest, shape, book)
    others = [alias for alias in rest if alias != leader]
    challenger = optimistic_challenger(rest, leader, shape, book, tuning) if others else None
    if challenger is not None and not may_overturn(challenger, leader, shape, book, tuning):
        challenger = None
    learn = challenger
    if learn is None and others and seats > 1:
        learn = least_known(others, shape, book, waited)
    after = [alias for alias in others if alias != learn]
    second = least_known(after, shape, book, waited) if after and seats > 1 else None
    head = [alias for alias in (learn, leader, second) if alias is not None]
    order = [*head, *sorted((a for a in rest if a not in head), key=lambda a: (-mean[a], a))]
    share = f"{tuning.leader_share:.0%}"
    found: list[NextExplorer] = []
    for alias in order:
        low, high = book.posterior(alias, shape).interval()
        judged = book.counts(alias, shape).judged
        verdicts = f"{judged} verdict{'' if judged == 1 else 's'} on this shape"
        if alias == challenger:
            reason: Reason = "challenger"
            why = f"challenger: could still overturn the leader {leader}"
        elif alias == learn:
            reason, why = "least known", f"least known: {verdicts}, the leader's lead settled"
        elif alias == leader:
            reason, why = (
                "leader",
                f"leader: best posterior mean ({mean[alias]:.0%}), sits in {share} of panels",
            )
        elif alias == second:
            reason, why = "least known", f"least known next: {verdicts}, sits when the leader does not"
        elif high - low >= WIDE_INTERVAL:
            reason, why = "few verdicts", f"few verdicts: wide interval ({low:.0%} to {high:.0%})"
        else:
            reason, why = "behind", f"behind the leader at {mean[alias]:.0%}: sits when due or least known"
        found.append(NextExplorer(alias, reason, why, mean[alias]))
    return found


def evidence_order(
    pool: Sequence[str],
    *,
    shape: str,
    seats: int,
    floor: int,
    book: EvidenceBook,
    unseated_for: Mapping[str, int],
    tuning: ExplorerTuning = TUNING,
) -> list[NextExplorer]:
    """The pool in the evidence rule's order under `tuning`: models the floor makes due, models it
    lets sit early, then the free seats'."""
    due, early = floor_seats(
        pool, shape=shape, seats=seats, floor=floor, book=book, unseated_for=unseated_for, tuning=tuning
    )

    def floor_seat(alias: str, reason: Reason) -> NextExplorer:
        where = ", its thinnest record" if reason == "early" and tuning.early_by == "thin" else ""
        why = f"{reason}: {_unseated_words(alias, unseated_for)} (floor {floor}){where}"
        return NextExplorer(alias, reason, why, book.posterior(alias, shape).mean)

    first = [*(floor_seat(alias, "due") for alias in due), *(floor_seat(alias, "early") for alias in early)]
    rest = [alias for alias in pool if alias not in due and alias not in early]
    waited = unseated_for if tuning.known_by == "deadline" else None
    return [*first, *_by_estimate(rest, shape, seats - len(first), book, tuning, waited)]


def stalest_order(
    pool: Sequence[str], *, shape: str, book: EvidenceBook, unseated_for: Mapping[str, int]
) -> list[NextExplorer]:
    """The pool in the old rule's order: never seated first, then the longest unseated."""
    order = sorted(pool, key=lambda alias: (-overdue(alias, unseated_for), alias.casefold(), alias))
    return [
        NextExplorer(
            alias,
            "stalest",
            f"stalest first: {_unseated_words(alias, unseated_for)}",
            book.posterior(alias, shape).mean,
        )
        for alias in order
    ]


def mark_next_panel(
    order: Sequence[NextExplorer], roster: Mapping[str, ModelInfo], seats: int, taken: Collection[str] = ()
) -> list[NextExplorer]:
    """The order with the next panel's explorers marked: walked first to last, one model a family
    (none of a taken model's), as `core/seating.py` fills the seats."""
    kin = {family(roster[alias].served_id) for alias in taken if alias in roster}
    marked: list[NextExplorer] = []
    for candidate in order:
        its = family(roster[candidate.alias].served_id)
        sits = sum(c.next_panel for c in marked) < seats and its not in kin
        if sits:
            kin.add(its)
        marked.append(replace(candidate, next_panel=sits))
    return marked


def preview_shape(
    roster: Mapping[str, ModelInfo],
    *,
    shape: str,
    seats: int,
    floor: int,
    rule: ExplorerRule,
    book: EvidenceBook,
    unseated_for: Mapping[str, int],
    taken: Collection[str] = (),
) -> ShapePreview:
    """Every candidate for an explorer seat on `shape`, in the gateway's rule's order, with why."""
    pool = explorer_pool(roster, shape, taken)
    if rule == "stalest":
        order = stalest_order(pool, shape=shape, book=book, unseated_for=unseated_for)
    else:
        order = evidence_order(
            pool, shape=shape, seats=max(seats, 0), floor=floor, book=book, unseated_for=unseated_for
        )
    marked = mark_next_panel(order, roster, max(seats, 0), taken)
    return ShapePreview(shape, max(seats, 0), floor, rule, tuple(marked))
