from datetime import datetime
from typing import Any

from panelgate.core.merge import MERGE_SYSTEM, merge_estimate, merge_messages, merger_candidates, merger_skip
from panelgate.core.sizing import estimate_tokens
from panelgate.core.types import ChatMessage, CollectionInfo, ModelInfo, SeatResult, Skip

PANEL = "p20261020-090507-a1b2"
DATA_URL = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAAB"
REQUEST: list[ChatMessage] = [
    {"role": "system", "content": "Answer in French."},
    {
        "role": "user",
        "content": [
            {"type": "text", "text": "What is in"},
            {"type": "image_url", "image_url": {"url": DATA_URL}},
            {"type": "text", "text": "this picture?"},
        ],
    },
]
RESULTS = [
    SeatResult(f"{PANEL}.member1", "member", "m1", "member", "ok", 3.0, answer="Un chat."),
    SeatResult(f"{PANEL}.member2", "member", "m2", "member", "error", 1.0, error="HTTP 500"),
    SeatResult(f"{PANEL}.explorer", "explorer", "x1", "explorer", "empty", 2.0),
    SeatResult(f"{PANEL}.explorer2", "explorer 2", "x2", "explorer", "ok", 4.0, answer="Un chien."),
]


def model(alias: str, **facts: Any) -> ModelInfo:
    return ModelInfo(alias=alias, served_id=f"v/{alias}", endpoint="local", **facts)


def roster(*aliases: str, **special: ModelInfo) -> dict[str, ModelInfo]:
    return {a: model(a) for a in aliases} | special


def collection(merger: str = "", members: tuple[str, ...] = ("m1", "m2", "m3")) -> CollectionInfo:
    return CollectionInfo(name="core", members=members, merger=merger)


def test_the_merger_is_told_to_keep_agreement_disagreement_and_attribution() -> None:
    messages = merge_messages(REQUEST, RESULTS)
    assert messages[0] == {"role": "system", "content": MERGE_SYSTEM}
    lowered = MERGE_SYSTEM.lower()
    assert all(word in lowered for word in ("agree", "disagree", "who said what", "dissent", "invent"))


def test_the_merger_reads_the_request_flattened_with_image_placeholders() -> None:
    user = merge_messages(REQUEST, RESULTS)[1]["content"]
    assert user.startswith(
        "THE REQUEST\n\nsystem: Answer in French.\n\nuser: What is in\n[image]\nthis picture?"
    )
    assert "base64" not in user


def test_the_merger_reads_only_the_ok_answers_under_their_seat_and_alias() -> None:
    user = merge_messages(REQUEST, RESULTS)[1]["content"]
    answers = user.split("THE ANSWERS\n\n", 1)[1]
    assert answers == "## member — m1\n\nUn chat.\n\n## explorer 2 — x2\n\nUn chien."


def test_merge_estimate_is_the_size_of_the_merge_call_without_image_costs() -> None:
    assert merge_estimate(REQUEST, RESULTS) == estimate_tokens(merge_messages(REQUEST, RESULTS))
    assert merge_estimate(REQUEST, RESULTS) < 2500


def test_longer_answers_make_a_larger_merge() -> None:
    longer = [
        *RESULTS,
        SeatResult(f"{PANEL}.member3", "member", "m3", "member", "ok", 1.0, answer="x" * 4000),
    ]
    assert merge_estimate(REQUEST, longer) > merge_estimate(REQUEST, RESULTS) + 900


def test_the_collection_merger_is_the_only_candidate() -> None:
    candidates = merger_candidates(
        collection=collection("boss"),
        sitting_members=["m1", "m2"],
        roster=roster("m1", "m2", "boss"),
        standing={"m2": 0.9},
    )
    assert candidates == ["boss"]


def test_a_retired_collection_merger_falls_back_to_the_members() -> None:
    candidates = merger_candidates(
        collection=collection("boss"),
        sitting_members=["m1", "m2"],
        roster=roster("m1", "m2", boss=model("boss", retired=True)),
        standing={},
    )
    assert candidates == ["m1", "m2"]


def test_members_the_record_rates_higher_on_the_shape_merge_first() -> None:
    candidates = merger_candidates(
        collection=collection(),
        sitting_members=["m1", "m2", "m3", "m4"],
        roster=roster("m1", "m2", "m3", "m4"),
        standing={"m3": 0.5, "m4": 0.8, "m1": 0.2},
    )
    assert candidates == ["m4", "m3", "m1", "m2"]


def test_retired_or_absent_members_never_merge() -> None:
    candidates = merger_candidates(
        collection=collection(),
        sitting_members=["m1", "ghost", "m2"],
        roster=roster("m2", m1=model("m1", retired=True)),
        standing={"m1": 0.9},
    )
    assert candidates == ["m2"]


def test_a_retired_collection_merger_is_listed_as_skipped_with_why() -> None:
    gone = model("boss", retired=True, retired_at=datetime(2026, 10, 1), retired_why="paywalled")
    assert merger_skip(collection("boss"), roster(boss=gone)) == Skip(
        "merger", "boss", "retired from the bench on 2026-10-01: paywalled"
    )


def test_an_absent_collection_merger_is_listed_as_not_on_the_bench() -> None:
    assert merger_skip(collection("boss"), roster("m1")) == Skip("merger", "boss", "not on the bench")


def test_a_collection_merger_on_the_bench_or_none_at_all_is_no_skip() -> None:
    assert merger_skip(collection("boss"), roster("boss")) is None
    assert merger_skip(collection(), roster("m1")) is None
