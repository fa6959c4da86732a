"""Who sits on a panel: the collection's members, then explorer seats.

This is the one place the seating rules live (SPEC §2), as a pure function
of what the caller asked, the bench as it is now and when each model last
sat, so the engine, a dry run and the tests all agree.

Members always sit unless they cannot answer this request (retired, blind to
its images, an image maker, a vision specialist on a text prompt) or are
cooling down after a rate limit while someone else can sit. A prompt
too big for a sitting member is refused outright rather than sent to fail.
Explorer seats go first to models the caller nominated by name (`with`),
then to eligible models chosen by the record under a staleness floor
(`core/explorer_policy.py`), or stalest first when the gateway says so or
no evidence is given; never two of one family, and never the collection's
merger, which would otherwise merge its own answer. On a prompt over 8,000
characters, candidates the weekly speed test found failing or far slower on
long prompts sit out, each listed as skipped (`core/long_prompts.py`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Literal

from panelgate.core.errors import BadRequest, TooLarge, Unavailable
from panelgate.core.explorer_floor import bench_size, floor_panels
from panelgate.core.explorer_policy import ExplorerEvidence, explorer_order
from panelgate.core.family import family
from panelgate.core.long_prompts import is_long, misfits
from panelgate.core.shapes import admits
from panelgate.core.sizing import fits
from panelgate.core.types import (
    CollectionInfo,
    GatewayLimits,
    ModelInfo,
    PlannedSeat,
    SeatPlan,
    Shape,
    Skip,
)

NOT_ON_BENCH = "not on the bench"
CANNOT_SEE = "cannot see images"
VISION_ONLY = "vision specialist; the request has no images"
MAKES_IMAGES = "makes images, does not answer text"
IS_MERGER = "the collection's merger: it merges the answers, so it does not also answer"


def retired_reason(model: ModelInfo) -> str:
    """`retired from the bench on YYYY-MM-DD: <why>` (date and why when known)."""
    words = "retired from the bench"
    if model.retired_at is not None:
        words += f" on {model.retired_at:%Y-%m-%d}"
    return f"{words}: {model.retired_why}" if model.retired_why else words


def cooling_reason(until: datetime | None) -> str:
    """`cooling down until HH:MM:SS UTC (rate limit)`: its provider said to wait until then."""
    when = f" until {until.astimezone(UTC):%H:%M:%S} UTC" if until is not None else ""
    return f"cooling down{when} (rate limit)"


def _listed(items: Sequence[str]) -> str:
    """`a`, `a and b`, `a, b and c`."""
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _dedupe(aliases: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(aliases))


def _too_small(model: ModelInfo, estimate: int) -> str:
    window = model.context_window or 0
    return f"context window {window:,} is smaller than the prompt (about {estimate:,} tokens)"


@dataclass
class _Table:
    """The panel while it is being seated."""

    roster: Mapping[str, ModelInfo]
    has_images: bool
    cooling_until: Mapping[str, datetime] = field(default_factory=dict)
    skipped: list[Skip] = field(default_factory=list)
    members: list[str] = field(default_factory=list)
    explorers: list[str] = field(default_factory=list)

    def skip(self, seat: Literal["member", "with", "explorer"], alias: str, why: str) -> None:
        self.skipped.append(Skip(seat, alias, why))

    def families(self) -> set[str]:
        return {family(self.roster[alias].served_id) for alias in self.members + self.explorers}

    def answer_problem(self, model: ModelInfo) -> str | None:
        """Why this model cannot answer this request at all, if it cannot."""
        if model.held:
            return model.held
        if model.role == "image":
            return MAKES_IMAGES
        if self.has_images and model.vision is not True:
            return CANNOT_SEE
        return None


def _seat_members(table: _Table, collection: CollectionInfo, limits: GatewayLimits) -> int:
    """Seat the members who can answer; return how many explorer seats they leave."""
    present: list[str] = []
    for alias in _dedupe(collection.members):
        model = table.roster.get(alias)
        if model is None:
            table.skip("member", alias, NOT_ON_BENCH)
        elif model.retired:
            table.skip("member", alias, retired_reason(model))
        elif model.held:
            table.skip("member", alias, model.held)
        elif model.cooling_down:
            table.skip("member", alias, cooling_reason(table.cooling_until.get(alias)))
        else:
            present.append(alias)
    present = present[: max(0, limits.max_calls)]
    for alias in present:
        model = table.roster[alias]
        problem = table.answer_problem(model)
        if problem is None and not table.has_images and model.role == "vision":
            problem = VISION_ONLY
        if problem is None:
            table.members.append(alias)
        else:
            table.skip("member", alias, problem)
    return max(0, min(limits.max_explorers, limits.max_calls - len(present)))


def _check_size(table: _Table, estimate: int) -> None:
    """Refuse a prompt larger than a sitting member's known context window."""
    too_small = [table.roster[alias] for alias in table.members if not fits(table.roster[alias], estimate)]
    if not too_small:
        return
    named = _listed([f"`{model.alias}` ({model.context_window or 0:,})" for model in too_small])
    smallest = min(model.context_window or 0 for model in too_small)
    them = "it" if len(too_small) == 1 else "them"
    raise TooLarge(
        f"the prompt is about {estimate:,} tokens, larger than the context window of {named}; "
        f"trim it under {smallest:,} tokens or ask a collection without {them}"
    )


def _seat_nominees(
    table: _Table,
    *,
    collection: CollectionInfo,
    limits: GatewayLimits,
    nominees: Sequence[str],
    estimate: int,
    seats: int,
) -> None:
    """Give the first explorer seats to the models the caller named in `with`."""
    wanted = [alias for alias in _dedupe(nominees) if alias not in collection.members]
    unknown = [f"`{alias[:80]}`" for alias in wanted if alias not in table.roster]
    if unknown:
        raise BadRequest(
            f"`with` names {_listed(unknown)}, not on the bench; name models by their bench alias",
            param="with",
        )
    for alias in wanted:
        model = table.roster[alias]
        problem = retired_reason(model) if model.retired else table.answer_problem(model)
        if problem is None and alias == collection.merger:
            problem = IS_MERGER
        if problem is None and model.cooling_down:
            problem = cooling_reason(table.cooling_until.get(alias))
        if problem is None and not fits(model, estimate):
            problem = _too_small(model, estimate)
        if problem is None:
            table.explorers.append(alias)
        else:
            table.skip("with", alias, problem)
    if not table.explorers or len(table.explorers) <= seats:
        return
    if seats == 0:
        why, instead = (
            ("the gateway allows none: max_explorers is 0", "")
            if limits.max_explorers <= 0
            else (
                f"its members fill all {limits.max_calls} calls a panel may make",
                " or ask a collection with fewer members",
            )
        )
        raise BadRequest(
            f"collection `{collection.name}` has no explorer seats ({why}), so `with` cannot be "
            f"honoured; ask without `with`{instead}",
            param="with",
        )
    raise BadRequest(
        f"`with` names {len(table.explorers)} models but collection `{collection.name}` has "
        f"{seats} explorer seat{'s' if seats != 1 else ''}; name at most {seats}",
        param="with",
    )


def _choose_shape(
    collection: CollectionInfo, has_images: bool, open_seats: int, decided: tuple[Shape, str] | None
) -> tuple[Shape, str]:
    """(shape, who decided it): the collection's, else `vision` for images, else the one decided before
    seating (the rules' or the decision model's: engine/shape_decision.py)."""
    if collection.shape is not None:
        return collection.shape, "collection"
    if has_images:
        return "vision", "images"
    if decided is not None:
        return decided
    if open_seats == 0:
        return "general", "no explorer seats to choose"
    return "general", "default"


def _stalest_first(aliases: Iterable[str], last_seated: Mapping[str, datetime | None]) -> list[str]:
    """Never-seated models first, then oldest last seat first; ties by alias."""
    never: list[str] = []
    seen: list[tuple[datetime, str, str]] = []
    for alias in aliases:
        when = last_seated.get(alias)
        if when is None:
            never.append(alias)
        else:
            seen.append((when, alias.casefold(), alias))
    never.sort(key=lambda alias: (alias.casefold(), alias))
    return never + [alias for _, _, alias in sorted(seen)]


def _may_explore(table: _Table, model: ModelInfo, shape: Shape, estimate: int) -> bool:
    return (
        not model.retired
        and model.available
        and not model.ad_hoc
        and not model.cooling_down
        and admits(shape, model.role)
        and table.answer_problem(model) is None
        and fits(model, estimate)
    )


def _explorer_order(
    table: _Table,
    pool: list[str],
    *,
    shape: Shape,
    seats: int,
    limits: GatewayLimits,
    last_seated: Mapping[str, datetime | None],
    evidence: ExplorerEvidence | None,
) -> list[str]:
    """The pool in the order the gateway's explorer rule would seat it."""
    if evidence is None or limits.explorer_rule == "stalest" or not pool:
        return _stalest_first(pool, last_seated)
    floor = floor_panels(limits.explorer_floor, bench_size(table.roster))
    return explorer_order(pool, shape=shape, seats=seats, floor=floor, evidence=evidence)


def _seat_explorers(
    table: _Table,
    *,
    collection: CollectionInfo,
    shape: Shape,
    estimate: int,
    seats: int,
    limits: GatewayLimits,
    last_seated: Mapping[str, datetime | None],
    evidence: ExplorerEvidence | None,
) -> None:
    """Fill the explorer seats left after nominees by the explorer rule (stalest first without evidence)."""
    taken = set(collection.members) | set(table.members) | set(table.explorers) | {collection.merger}
    families = table.families()
    pool = [
        alias
        for alias, model in table.roster.items()
        if alias not in taken
        and family(model.served_id) not in families
        and _may_explore(table, model, shape, estimate)
    ]
    if (
        limits.skip_slow_on_long_prompts
        and evidence is not None
        and evidence.long_prompt
        and is_long(estimate)
    ):
        pool = _without_long_prompt_misfits(table, pool, evidence)
    order = _explorer_order(
        table,
        pool,
        shape=shape,
        seats=seats - len(table.explorers),
        limits=limits,
        last_seated=last_seated,
        evidence=evidence,
    )
    for alias in order:
        if len(table.explorers) >= seats:
            return
        kin = family(table.roster[alias].served_id)
        if kin not in families:
            table.explorers.append(alias)
            families.add(kin)


def _without_long_prompt_misfits(table: _Table, pool: list[str], evidence: ExplorerEvidence) -> list[str]:
    """The pool less the candidates the speed test found failing or far slower on long prompts, each
    listed as skipped."""
    unfit = misfits(pool, evidence.long_prompt)
    for alias, why in unfit.items():
        table.skip("explorer", alias, why)
    return [alias for alias in pool if alias not in unfit]


def _refuse_empty(table: _Table, collection: CollectionInfo, shape: Shape, seats: int) -> None:
    """No seat at all: say why, as a 400 for images and a 503 otherwise."""
    reasons = [f"`{skip.alias}` ({skip.why})" for skip in table.skipped]
    if not collection.members:
        reasons.insert(0, f"collection `{collection.name}` has no members")
    if seats:
        able = " that can see" if table.has_images else ""
        reasons.append(f"no model{able} on the bench is free to explore a {shape} panel")
    else:
        reasons.append("the collection leaves no explorer seats")
    why = "; ".join(reasons)
    if table.has_images:
        raise BadRequest(
            f"no seat can see images: {why}. Send the request without images, "
            "or add a model that can see to the collection"
        )
    raise Unavailable(f"nobody can sit on a panel of `{collection.name}`: {why}")


def _cooldowns_ignored(roster: Mapping[str, ModelInfo], aliases: Iterable[str]) -> dict[str, ModelInfo]:
    """The roster with these models seated as if they were not cooling down."""
    wanted = set(aliases)
    return {
        alias: replace(model, cooling_down=False) if alias in wanted else model
        for alias, model in roster.items()
    }


def _plan_seats(table: _Table) -> tuple[PlannedSeat, ...]:
    members = [
        PlannedSeat("member", f"member{n}", alias, "member") for n, alias in enumerate(table.members, 1)
    ]
    explorers = [
        PlannedSeat(
            "explorer" if n == 1 else f"explorer {n}",
            "explorer" if n == 1 else f"explorer{n}",
            alias,
            "explorer",
        )
        for n, alias in enumerate(table.explorers, 1)
    ]
    return tuple(members + explorers)


def seat_panel(
    *,
    collection: CollectionInfo,
    roster: Mapping[str, ModelInfo],
    limits: GatewayLimits,
    estimate: int,
    has_images: bool,
    nominees: Sequence[str],
    last_seated: Mapping[str, datetime | None],
    cooling_until: Mapping[str, datetime] | None = None,
    evidence: ExplorerEvidence | None = None,
    decided: tuple[Shape, str] | None = None,
) -> SeatPlan:
    """Seat one panel of `collection` for a prompt of about `estimate` tokens.

    `roster` is every model on the bench by alias, retired ones included;
    `last_seated` says when each last sat (None or absent: never);
    `cooling_until` when each model marked `cooling_down` may be asked again;
    `evidence` the record the explorer rule reads (None: stalest first, as
    the old rule did); `decided` the shape decided from the request and by
    whom, used unless the collection's shape or images decide it.
    A member cooling down gives its seat to the next member or an explorer;
    when nobody else can sit, the members cooling down sit after all (the
    call then waits for the cooldown or is refused unsent by pacing). Raises
    `TooLarge` when the prompt outgrows a sitting member, `BadRequest` for a
    `with` that cannot be honoured or images nobody can see, and
    `Unavailable` when nobody can sit.
    """
    table = _Table(roster=roster, has_images=has_images, cooling_until=cooling_until or {})
    seats = _seat_members(table, collection, limits)
    _check_size(table, estimate)
    _seat_nominees(
        table, collection=collection, limits=limits, nominees=nominees, estimate=estimate, seats=seats
    )
    shape, shape_by = _choose_shape(collection, has_images, seats - len(table.explorers), decided)
    _seat_explorers(
        table,
        collection=collection,
        shape=shape,
        estimate=estimate,
        seats=seats,
        limits=limits,
        last_seated=last_seated,
        evidence=evidence,
    )
    if not table.members and not table.explorers:
        if any(alias in roster and roster[alias].cooling_down for alias in collection.members):
            return seat_panel(
                collection=collection,
                roster=_cooldowns_ignored(roster, collection.members),
                limits=limits,
                estimate=estimate,
                has_images=has_images,
                nominees=nominees,
                last_seated=last_seated,
                evidence=evidence,
                decided=decided,
            )
        _refuse_empty(table, collection, shape, seats)
    return SeatPlan(
        seats=_plan_seats(table),
        skipped=tuple(table.skipped),
        shape=shape,
        shape_by=shape_by,
        members=len(table.members),
        explorers=len(table.explorers),
    )
