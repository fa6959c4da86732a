"""Explorer seats by the record (the `evidence` input of `seat_panel`)."""

import random
from collections import Counter
from collections.abc import Iterator, Mapping
from datetime import datetime, timedelta

import pytest

from panelgate.core.evidence import Counts, fit_evidence
from panelgate.core.explorer_policy import ExplorerEvidence
from panelgate.core.family import family
from panelgate.core.seating import seat_panel
from panelgate.core.types import CollectionInfo, ExplorerRule, GatewayLimits, ModelInfo, SeatPlan, Shape

START = datetime(2026, 10, 20, 12, 0, 0)


def model(alias: str) -> ModelInfo:
    return ModelInfo(alias=alias, served_id=f"vendor/{alias}", endpoint="local")


def bench(*aliases: str) -> dict[str, ModelInfo]:
    return {alias: model(alias) for alias in aliases}


def seat(
    roster: Mapping[str, ModelInfo],
    *,
    counts: Mapping[tuple[str, str], Counts] | None = None,
    unseated_for: Mapping[str, int] | None = None,
    seed: int = 1,
    shape: Shape = "code",
    merger: str = "",
    nominees: tuple[str, ...] = (),
    limits: GatewayLimits | None = None,
    last_seated: Mapping[str, datetime | None] | None = None,
) -> SeatPlan:
    families = {alias: family(m.served_id) for alias, m in roster.items()}
    evidence = ExplorerEvidence(
        book=fit_evidence(counts or {}, families),
        unseated_for=unseated_for if unseated_for is not None else dict.fromkeys(roster, 0),
        rng=random.Random(seed),
    )
    return seat_panel(
        collection=CollectionInfo(name="core", members=("m1",), shape=shape, merger=merger),
        roster=roster,
        limits=limits or GatewayLimits(),
        estimate=100,
        has_images=False,
        nominees=nominees,
        last_seated=last_seated or {},
        evidence=evidence,
    )


def explorers(plan: SeatPlan) -> list[str]:
    return [s.alias for s in plan.seats if s.kind == "explorer"]


def panels_in_a_row(
    roster: dict[str, ModelInfo],
    panels: int,
    counts: Mapping[tuple[str, str], Counts],
    *,
    limits: GatewayLimits,
    seed: int,
) -> Iterator[tuple[SeatPlan, dict[str, int]]]:
    """Seat `panels` code panels in a row by the record; each plan with the staleness it leaves."""
    unseated: dict[str, int] = {}
    rng = random.Random(seed)
    book = fit_evidence(counts, {alias: family(m.served_id) for alias, m in roster.items()})
    for _ in range(panels):
        plan = seat_panel(
            collection=CollectionInfo(name="core", members=("m1",), shape="code"),
            roster=roster,
            limits=limits,
            estimate=100,
            has_images=False,
            nominees=(),
            last_seated={},
            evidence=ExplorerEvidence(book=book, unseated_for=dict(unseated), rng=rng),
        )
        seated = {s.alias for s in plan.seats}
        unseated = {alias: 0 if alias in seated else unseated.get(alias, 0) + 1 for alias in roster}
        yield plan, unseated


def run_panels(
    roster: dict[str, ModelInfo],
    panels: int,
    counts: Mapping[tuple[str, str], Counts],
    limits: GatewayLimits | None = None,
    seed: int = 11,
) -> Counter[str]:
    """Each model's explorer seats over `panels` code panels in a row."""
    limits = limits or GatewayLimits(explorer_floor=10)
    sat: Counter[str] = Counter()
    for plan, _ in panels_in_a_row(roster, panels, counts, limits=limits, seed=seed):
        sat.update(explorers(plan))
    return sat


def test_a_model_judged_useful_on_code_sits_more_often_than_one_judged_useless() -> None:
    roster = bench("m1", *(f"x{n}" for n in range(8)))
    counts = {
        ("x0", "code"): Counts(useful=18, not_useful=2),
        ("x1", "code"): Counts(useful=2, not_useful=18),
    }
    counts |= {(f"x{n}", "code"): Counts(useful=5, not_useful=5) for n in range(2, 8)}
    sat = run_panels(roster, 200, counts)
    assert sat["x0"] > 3 * sat["x1"]
    assert sat["x1"] > 0  # the floor still seats it


def test_the_floor_seats_a_never_seated_model_within_k_panels() -> None:
    roster = bench("m1", *(f"x{n}" for n in range(12)))
    counts = {(f"x{n}", "code"): Counts(useful=19, not_useful=1) for n in range(11)}
    counts[("x11", "code")] = Counts(useful=0, not_useful=20)  # judged useless: only the floor seats it
    unseated = dict.fromkeys(roster, 0)
    del unseated["x11"]  # never seated
    plan = seat(roster, counts=counts, unseated_for=unseated)
    assert "x11" in explorers(plan)


def test_a_model_whose_floor_deadline_is_this_panel_sits() -> None:
    roster = bench("m1", *(f"x{n}" for n in range(5)))
    counts = {(f"x{n}", "code"): Counts(useful=19, not_useful=1) for n in range(4)}
    unseated = dict.fromkeys(roster, 0) | {"x4": 9}
    plan = seat(roster, counts=counts, unseated_for=unseated, limits=GatewayLimits(explorer_floor=10))
    assert "x4" in explorers(plan)


def test_the_worst_staleness_stays_within_the_floor_over_a_long_run() -> None:
    roster = bench("m1", *(f"x{n}" for n in range(12)))
    counts = {("x0", "code"): Counts(useful=20)}
    longest: dict[str, int] = {}
    for _, unseated in panels_in_a_row(roster, 150, counts, limits=GatewayLimits(explorer_floor=10), seed=5):
        for alias, panels in unseated.items():
            longest[alias] = max(longest.get(alias, 0), panels)
    assert max(longest.values()) <= 9


def test_the_collections_merger_is_never_an_explorer() -> None:
    roster = bench("m1", "merger", "x1", "x2")
    counts = {("merger", "code"): Counts(useful=20)}
    for seed in range(20):
        assert "merger" not in explorers(seat(roster, counts=counts, merger="merger", seed=seed))


def test_the_merger_is_not_an_explorer_under_the_stalest_rule_either() -> None:
    roster = bench("m1", "merger", "x1", "x2")
    plan = seat_panel(
        collection=CollectionInfo(name="core", members=("m1",), merger="merger"),
        roster=roster,
        limits=GatewayLimits(),
        estimate=100,
        has_images=False,
        nominees=(),
        last_seated={},
    )
    assert explorers(plan) == ["x1", "x2"]


def test_a_with_nomination_of_the_merger_is_skipped_with_why() -> None:
    plan = seat(bench("m1", "merger", "x1", "x2"), merger="merger", nominees=("merger",))
    assert "merger" not in explorers(plan)
    assert [(s.seat, s.alias) for s in plan.skipped] == [("with", "merger")]
    assert "merges the answers" in plan.skipped[0].why


def test_with_nominations_still_take_the_first_explorer_seats() -> None:
    roster = bench("m1", *(f"x{n}" for n in range(5)))
    counts = {("x0", "code"): Counts(useful=20)}
    assert explorers(seat(roster, counts=counts, nominees=("x4",)))[0] == "x4"


def test_two_of_one_family_never_explore_together() -> None:
    roster = {
        "m1": model("m1"),
        "a": ModelInfo(alias="a", served_id="one/llama-3", endpoint="local"),
        "b": ModelInfo(alias="b", served_id="two/llama-3", endpoint="local"),
        "c": model("c"),
    }
    counts = {("a", "code"): Counts(useful=20), ("b", "code"): Counts(useful=20)}
    for seed in range(10):
        assert set(explorers(seat(roster, counts=counts, seed=seed))) != {"a", "b"}


def test_seating_by_the_record_is_reproducible_under_a_seed() -> None:
    roster = bench("m1", *(f"x{n}" for n in range(10)))
    counts = {(f"x{n}", "code"): Counts(useful=n, not_useful=10 - n) for n in range(10)}
    runs = [[explorers(seat(roster, counts=counts, seed=seed)) for seed in range(10)] for _ in range(2)]
    assert runs[0] == runs[1]


def test_the_stalest_rule_ignores_the_record() -> None:
    roster = bench("m1", "x1", "x2", "x3")
    counts = {("x3", "code"): Counts(useful=20)}
    last = {"x1": START, "x2": START - timedelta(days=1), "x3": START + timedelta(days=1)}
    plan = seat(roster, counts=counts, limits=GatewayLimits(explorer_rule="stalest"), last_seated=last)
    assert explorers(plan) == ["x2", "x1"]


@pytest.mark.parametrize("rule", ["evidence", "stalest"])
def test_without_evidence_explorers_are_stalest_first_whatever_the_rule(rule: ExplorerRule) -> None:
    roster = bench("m1", "x1", "x2", "x3")
    last = {"x1": START, "x2": START - timedelta(days=1)}
    plan = seat_panel(
        collection=CollectionInfo(name="core", members=("m1",)),
        roster=roster,
        limits=GatewayLimits(explorer_rule=rule),
        estimate=100,
        has_images=False,
        nominees=(),
        last_seated=last,
    )
    assert explorers(plan) == ["x3", "x2"]


def test_with_one_explorer_seat_a_settled_record_seats_its_best_model_beyond_the_floor() -> None:
    roster = bench("m1", "good", "poor", "other")
    counts = {
        ("good", "code"): Counts(useful=8),
        ("poor", "code"): Counts(not_useful=5),
        ("other", "code"): Counts(not_useful=5),
    }
    sat = run_panels(
        roster, 60, counts, GatewayLimits(max_calls=2, max_explorers=1, explorer_floor=6), seed=3
    )
    assert sat["good"] >= 35, sat  # all but the floor's seats: about 60 - 2 × 60 / 6
    assert 8 <= sat["poor"] <= 12 and 8 <= sat["other"] <= 12, sat
