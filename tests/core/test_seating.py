from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from panelgate.core.errors import BadRequest, GatewayError, TooLarge, Unavailable
from panelgate.core.family import family
from panelgate.core.seating import seat_panel
from panelgate.core.types import CollectionInfo, GatewayLimits, ModelInfo, SeatPlan, Skip

DAY = datetime(2026, 10, 20, 12, 0, 0)


def model(alias: str, **facts: Any) -> ModelInfo:
    facts.setdefault("served_id", f"vendor/{alias}")
    return ModelInfo(alias=alias, endpoint="local", **facts)


def bench(*models: ModelInfo) -> dict[str, ModelInfo]:
    return {m.alias: m for m in models}


def seat(
    members: Sequence[str],
    roster: Mapping[str, ModelInfo],
    *,
    shape: Any = None,
    limits: GatewayLimits | None = None,
    estimate: int = 100,
    has_images: bool = False,
    nominees: Sequence[str] = (),
    last_seated: Mapping[str, datetime | None] | None = None,
) -> SeatPlan:
    return seat_panel(
        collection=CollectionInfo(name="core", members=tuple(members), shape=shape),
        roster=roster,
        limits=limits or GatewayLimits(),
        estimate=estimate,
        has_images=has_images,
        nominees=nominees,
        last_seated=last_seated or {},
    )


def seated(plan: SeatPlan) -> list[tuple[str, str, str]]:
    return [(s.label, s.suffix, s.alias) for s in plan.seats]


def explorers(plan: SeatPlan) -> list[str]:
    return [s.alias for s in plan.seats if s.kind == "explorer"]


# ---- members ------------------------------------------------------------------


def test_members_sit_in_order_then_explorers_with_numbered_seats() -> None:
    roster = bench(*(model(a) for a in ["m1", "m2", "x1", "x2", "x3"]))
    plan = seat(["m1", "m2"], roster)
    assert seated(plan) == [
        ("member", "member1", "m1"),
        ("member", "member2", "m2"),
        ("explorer", "explorer", "x1"),
        ("explorer 2", "explorer2", "x2"),
    ]
    assert (plan.members, plan.explorers) == (2, 2)


def test_explorer_seats_past_two_are_numbered_with_a_space() -> None:
    roster = bench(*(model(a) for a in ["m1", "x1", "x2", "x3"]))
    plan = seat(["m1"], roster, limits=GatewayLimits(max_calls=5, max_explorers=3))
    assert seated(plan)[-1] == ("explorer 3", "explorer3", "x3")


def test_a_member_listed_twice_sits_once() -> None:
    roster = bench(model("m1"), model("m2"))
    plan = seat(["m1", "m2", "m1"], roster, limits=GatewayLimits(max_explorers=0))
    assert [s.alias for s in plan.seats] == ["m1", "m2"]


def test_a_member_not_on_the_bench_is_skipped_with_why() -> None:
    plan = seat(["ghost", "m1"], bench(model("m1")))
    assert plan.skipped == (Skip("member", "ghost", "not on the bench"),)
    assert plan.members == 1


def test_a_retired_member_is_skipped_with_the_date_and_why() -> None:
    gone = model("gone", retired=True, retired_at=datetime(2026, 10, 20), retired_why="withdrawn")
    plan = seat(["gone", "m1"], bench(gone, model("m1")))
    assert plan.skipped == (Skip("member", "gone", "retired from the bench on 2026-10-20: withdrawn"),)


def test_a_retired_member_frees_its_slot_for_the_next_member_before_the_cap() -> None:
    roster = bench(model("m0", retired=True), *(model(f"m{n}") for n in range(1, 7)))
    plan = seat(["m0", "m1", "m2", "m3", "m4", "m5", "m6"], roster)
    assert [s.alias for s in plan.seats] == ["m1", "m2", "m3", "m4", "m5"]
    assert plan.explorers == 0


@pytest.mark.parametrize(("members", "expected"), [(1, 2), (2, 2), (3, 2), (4, 1), (5, 0)])
def test_explorer_seats_are_what_the_members_leave_under_max_calls(members: int, expected: int) -> None:
    roster = bench(*(model(f"m{n}") for n in range(members)), *(model(f"x{n}") for n in range(4)))
    plan = seat([f"m{n}" for n in range(members)], roster)
    assert plan.explorers == expected


def test_members_that_cannot_see_are_skipped_when_the_request_has_images() -> None:
    roster = bench(model("eyes", vision=True), model("blind", vision=False), model("unsure"))
    plan = seat(["eyes", "blind", "unsure"], roster, has_images=True, limits=GatewayLimits(max_explorers=0))
    assert [s.alias for s in plan.seats] == ["eyes"]
    assert [(s.alias, s.why) for s in plan.skipped] == [
        ("blind", "cannot see images"),
        ("unsure", "cannot see images"),
    ]


def test_vision_specialist_members_are_skipped_on_a_text_request() -> None:
    roster = bench(model("m1"), model("eye", role="vision", vision=True))
    plan = seat(["m1", "eye"], roster)
    assert Skip("member", "eye", "vision specialist; the request has no images") in plan.skipped
    assert "eye" not in [s.alias for s in plan.seats]


def test_vision_specialist_members_sit_when_the_request_has_images() -> None:
    roster = bench(model("eye", role="vision", vision=True))
    plan = seat(["eye"], roster, has_images=True)
    assert [s.alias for s in plan.seats] == ["eye"]


@pytest.mark.parametrize("has_images", [False, True])
def test_image_makers_never_sit(has_images: bool) -> None:
    roster = bench(model("m1", vision=True), model("painter", role="image", vision=True))
    plan = seat(["m1", "painter"], roster, has_images=has_images)
    assert Skip("member", "painter", "makes images, does not answer text") in plan.skipped


# ---- size -------------------------------------------------------------------


def test_a_prompt_larger_than_sitting_members_is_refused_naming_each_and_its_window() -> None:
    roster = bench(model("m1", context_window=8192), model("m2", context_window=4096), model("m3"))
    with pytest.raises(TooLarge) as refused:
        seat(["m1", "m2", "m3"], roster, estimate=12345)
    message = refused.value.message
    assert "12,345 tokens" in message
    assert "`m1` (8,192) and `m2` (4,096)" in message
    assert "trim it under 4,096 tokens" in message
    assert "m3" not in message
    assert refused.value.status == 413


def test_unknown_context_windows_never_refuse() -> None:
    plan = seat(["m1"], bench(model("m1")), estimate=10**7)
    assert plan.members == 1


def test_a_too_small_member_that_is_not_sitting_does_not_refuse() -> None:
    roster = bench(model("m1", vision=True), model("tiny", context_window=100, vision=False))
    plan = seat(["m1", "tiny"], roster, estimate=5000, has_images=True)
    assert [s.alias for s in plan.seats] == ["m1"]


# ---- nominees ---------------------------------------------------------------


def test_nominees_take_the_first_explorer_seats_even_ad_hoc_ones() -> None:
    roster = bench(model("m1"), model("a"), model("pricey", ad_hoc=True))
    plan = seat(["m1"], roster, nominees=["pricey"])
    assert explorers(plan) == ["pricey", "a"]


def test_a_nominee_that_is_a_member_sits_once_as_a_member() -> None:
    roster = bench(model("m1"), model("a"), model("b"))
    plan = seat(["m1"], roster, nominees=["m1", "m1"])
    assert [s.alias for s in plan.seats] == ["m1", "a", "b"]


def test_an_unknown_nominee_is_refused_by_name() -> None:
    with pytest.raises(BadRequest) as refused:
        seat(["m1"], bench(model("m1"), model("secret-model")), nominees=["nope"])
    assert "`nope`" in refused.value.message
    assert "secret-model" not in refused.value.message
    assert refused.value.param == "with"


def test_a_retired_nominee_is_skipped_as_with() -> None:
    roster = bench(model("m1"), model("old", retired=True, retired_why="gone"), model("a"))
    plan = seat(["m1"], roster, nominees=["old"])
    assert plan.skipped == (Skip("with", "old", "retired from the bench: gone"),)
    assert "old" not in explorers(plan)


def test_a_nominee_that_cannot_see_is_skipped_on_an_image_request() -> None:
    roster = bench(model("m1", vision=True), model("blind"))
    plan = seat(["m1"], roster, nominees=["blind"], has_images=True)
    assert plan.skipped == (Skip("with", "blind", "cannot see images"),)


def test_a_nominee_too_small_for_the_prompt_is_skipped_not_refused() -> None:
    roster = bench(model("m1"), model("tiny", context_window=1000))
    plan = seat(["m1"], roster, nominees=["tiny"], estimate=5000)
    assert [(s.seat, s.alias) for s in plan.skipped] == [("with", "tiny")]
    assert "1,000" in plan.skipped[0].why


def test_nominees_are_refused_when_members_fill_every_seat() -> None:
    roster = bench(*(model(f"m{n}") for n in range(5)), model("a"))
    with pytest.raises(BadRequest, match="no explorer seats") as refused:
        seat([f"m{n}" for n in range(5)], roster, nominees=["a"])
    assert refused.value.param == "with"


def test_nominees_are_refused_when_the_gateway_allows_no_explorers() -> None:
    with pytest.raises(BadRequest, match="max_explorers is 0"):
        seat(["m1"], bench(model("m1"), model("a")), nominees=["a"], limits=GatewayLimits(max_explorers=0))


def test_more_nominees_than_explorer_seats_is_refused_saying_how_many_seats() -> None:
    roster = bench(*(model(f"m{n}") for n in range(4)), model("a"), model("b"))
    with pytest.raises(BadRequest, match="has 1 explorer seat; name at most 1"):
        seat([f"m{n}" for n in range(4)], roster, nominees=["a", "b"])


def test_skipped_nominees_do_not_count_against_the_seats() -> None:
    roster = bench(*(model(f"m{n}") for n in range(5)), model("old", retired=True))
    plan = seat([f"m{n}" for n in range(5)], roster, nominees=["old"])
    assert plan.explorers == 0
    assert [s.seat for s in plan.skipped] == ["with"]


# ---- shape --------------------------------------------------------------------


def test_the_collection_shape_decides_when_set() -> None:
    plan = seat(["m1"], bench(model("m1", vision=True)), shape="review", has_images=True)
    assert (plan.shape, plan.shape_by) == ("review", "collection")


def test_images_make_the_shape_vision() -> None:
    plan = seat(["m1"], bench(model("m1", vision=True)), has_images=True)
    assert (plan.shape, plan.shape_by) == ("vision", "images")


def test_no_explorer_seats_means_no_shape_to_decide() -> None:
    plan = seat(["m1"], bench(model("m1")), limits=GatewayLimits(max_explorers=0))
    assert (plan.shape, plan.shape_by) == ("general", "no explorer seats to choose")


def test_nominees_filling_every_explorer_seat_leave_no_shape_to_decide() -> None:
    roster = bench(*(model(f"m{n}") for n in range(4)), model("a"))
    plan = seat([f"m{n}" for n in range(4)], roster, nominees=["a"])
    assert plan.shape_by == "no explorer seats to choose"


def test_the_shape_is_general_by_default() -> None:
    plan = seat(["m1"], bench(model("m1")))
    assert (plan.shape, plan.shape_by) == ("general", "default")


def test_review_shape_admits_code_explorers_and_general_does_not() -> None:
    roster = bench(model("m1"), model("coder", role="code"))
    assert explorers(seat(["m1"], roster, shape="review")) == ["coder"]
    assert explorers(seat(["m1"], roster)) == []


# ---- explorers ----------------------------------------------------------------


@pytest.mark.parametrize(
    "facts",
    [
        {"retired": True},
        {"available": False},
        {"ad_hoc": True},
        {"cooling_down": True},
        {"role": "light"},
        {"role": "image"},
        {"context_window": 999},
        {"served_id": "other/M1:free"},
    ],
    ids=[
        "retired",
        "unavailable",
        "ad-hoc",
        "cooling-down",
        "role-not-admitted",
        "image-maker",
        "too-small",
        "member-family",
    ],
)
def test_explorers_leave_out_models_that_should_not_sit(facts: dict[str, Any]) -> None:
    roster = bench(model("m1", served_id="vendor/m1"), model("x", **facts))
    plan = seat(["m1"], roster, estimate=1000)
    assert explorers(plan) == []


def test_explorers_on_an_image_request_must_see() -> None:
    roster = bench(
        model("m1", vision=True), model("blind"), model("unsure", vision=None), model("eye", vision=True)
    )
    assert explorers(seat(["m1"], roster, has_images=True)) == ["eye"]


def test_a_vision_specialist_explores_image_requests() -> None:
    roster = bench(model("m1", vision=True), model("eye", role="vision", vision=True))
    assert explorers(seat(["m1"], roster, has_images=True)) == ["eye"]


def test_two_explorers_of_one_family_never_sit_together() -> None:
    roster = bench(
        model("m1"), model("a", served_id="x/Kimi-K2"), model("b", served_id="y/kimi_k2:free"), model("c")
    )
    assert explorers(seat(["m1"], roster)) == ["a", "c"]


def test_an_explorer_of_a_nominee_family_does_not_sit() -> None:
    roster = bench(model("m1"), model("a", served_id="x/qwen3"), model("nom", served_id="y/Qwen-3"))
    assert explorers(seat(["m1"], roster, nominees=["nom"])) == ["nom"]


def test_never_seated_models_explore_first_then_the_longest_unseated() -> None:
    roster = bench(model("m1"), model("recent"), model("old"), model("new"))
    last = {"recent": DAY, "old": DAY - timedelta(days=30), "new": None}
    assert explorers(seat(["m1"], roster, last_seated=last)) == ["new", "old"]


def test_equally_stale_models_are_picked_by_alias_ignoring_case() -> None:
    roster = bench(model("m1"), model("beta"), model("Alpha"), model("gamma"))
    assert explorers(seat(["m1"], roster)) == ["Alpha", "beta"]


def test_fewer_candidates_than_seats_seat_fewer_explorers() -> None:
    plan = seat(["m1"], bench(model("m1"), model("only")))
    assert (plan.explorers, explorers(plan)) == (1, ["only"])


# ---- nobody ---------------------------------------------------------------------


def test_no_seat_on_an_image_request_is_a_bad_request_saying_why() -> None:
    with pytest.raises(BadRequest, match="no seat can see images") as refused:
        seat(["blind"], bench(model("blind"), model("other")), has_images=True)
    assert "`blind` (cannot see images)" in refused.value.message


def test_no_seat_on_a_text_request_is_unavailable_saying_why() -> None:
    roster = bench(model("gone", retired=True, retired_why="withdrawn"), model("busy", cooling_down=True))
    with pytest.raises(Unavailable) as refused:
        seat(["gone"], roster)
    assert "`gone` (retired from the bench: withdrawn)" in refused.value.message
    assert refused.value.status == 503


# ---- properties ---------------------------------------------------------------


FAMILIES = ["llama", "qwen", "kimi", "glm", "mistral"]


@st.composite
def benches(draw: st.DrawFn) -> tuple[dict[str, ModelInfo], list[str], GatewayLimits, bool]:
    size = draw(st.integers(1, 10))
    models = [
        model(
            f"m{n}",
            served_id=f"v{n}/{draw(st.sampled_from(FAMILIES))}",
            role=draw(st.sampled_from(["general", "general", "code", "light", "vision", "image"])),
            retired=draw(st.booleans()),
            ad_hoc=draw(st.booleans()),
            vision=draw(st.sampled_from([None, True, False])),
            cooling_down=draw(st.booleans()),
        )
        for n in range(size)
    ]
    members = draw(st.lists(st.sampled_from([m.alias for m in models] + ["ghost"]), max_size=7))
    limits = GatewayLimits(max_calls=draw(st.integers(1, 10)), max_explorers=draw(st.integers(0, 4)))
    return bench(*models), members, limits, draw(st.booleans())


def seat_or_none(drawn: tuple[dict[str, ModelInfo], list[str], GatewayLimits, bool]) -> SeatPlan | None:
    roster, members, limits, has_images = drawn
    try:
        return seat(members, roster, limits=limits, has_images=has_images)
    except GatewayError:
        return None


@given(benches())
def test_explorers_never_share_a_family_with_anyone_seated(drawn: Any) -> None:
    plan = seat_or_none(drawn)
    if plan is None:
        return
    roster = drawn[0]
    explorer_families = [family(roster[a].served_id) for a in explorers(plan)]
    member_families = {family(roster[s.alias].served_id) for s in plan.seats if s.kind == "member"}
    assert len(set(explorer_families)) == len(explorer_families)
    assert not set(explorer_families) & member_families


@given(benches())
def test_a_retired_model_never_sits(drawn: Any) -> None:
    plan = seat_or_none(drawn)
    if plan is not None:
        assert not any(drawn[0][s.alias].retired for s in plan.seats)


@given(benches())
def test_a_panel_never_exceeds_max_calls_or_max_explorers(drawn: Any) -> None:
    plan = seat_or_none(drawn)
    if plan is None:
        return
    limits = drawn[2]
    assert len(plan.seats) <= limits.max_calls
    assert plan.explorers <= limits.max_explorers
    assert plan.members + plan.explorers == len(plan.seats)


@given(benches())
def test_every_named_member_either_sits_or_is_skipped_with_why(drawn: Any) -> None:
    roster, members, limits, _ = drawn
    plan = seat_or_none(drawn)
    if plan is None:
        return
    accounted = {s.alias for s in plan.seats if s.kind == "member"} | {s.alias for s in plan.skipped}
    present = [a for a in dict.fromkeys(members) if a in roster and not roster[a].retired]
    capped = set(present[limits.max_calls :])
    assert set(members) - capped <= accounted


def test_stalest_first_rotation_seats_every_model_and_never_two_of_a_family() -> None:
    roster = bench(
        model("m1", served_id="a/llama-3"),
        model("m2", served_id="b/qwen-3"),
        model("x1", served_id="c/kimi-k2"),
        model("x2", served_id="d/Kimi_K2:free"),
        model("x3", served_id="e/glm-4.6"),
        model("x4", served_id="f/mistral-large"),
    )
    last: dict[str, datetime | None] = {}
    explored: set[str] = set()
    for n in range(6):
        now = DAY + timedelta(hours=n)
        plan = seat(["m1", "m2"], roster, last_seated=last)
        chosen = explorers(plan)
        assert len(chosen) == 2
        assert len({family(roster[a].served_id) for a in chosen}) == 2
        explored.update(chosen)
        last.update({s.alias: now for s in plan.seats})
    assert explored == {"x1", "x2", "x3", "x4"}


def test_seating_is_the_same_for_the_same_inputs() -> None:
    roster = bench(*(model(a) for a in ["m1", "b", "A", "c"]))
    assert seat(["m1"], roster) == seat(["m1"], dict(reversed(list(roster.items()))))


def test_a_member_cooling_down_still_sits() -> None:
    plan = seat(["m1"], bench(replace(model("m1"), cooling_down=True, available=False)))
    assert plan.members == 1
