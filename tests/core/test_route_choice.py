"""Who may take a route turn and in what order; which conversation a turn belongs to."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from panelgate.core.errors import BadRequest, TooLarge, Unavailable
from panelgate.core.evidence import Counts, fit_evidence
from panelgate.core.route_choice import TurnFacts, calls_tools, conversation_key, route_plan, route_standing
from panelgate.core.types import CollectionInfo, ModelInfo

T0 = datetime(2025, 3, 1, tzinfo=UTC)
TEXT = TurnFacts(has_tools=False, has_images=False, estimate=100)


def roster(**facts: dict[str, object]) -> dict[str, ModelInfo]:
    return {
        alias: ModelInfo(alias=alias, served_id=f"org/{alias}", endpoint="up", **f)
        for alias, f in facts.items()
    }  # type: ignore[arg-type]


def test_best_record_first_and_cooling_down_last():
    models = roster(a={}, b={"cooling_down": True}, c={})
    plan = route_plan(
        CollectionInfo("x", ("a", "b", "c")),
        models,
        TEXT,
        standing={"c": 0.7, "b": 0.9},
        last_seen={},
        rotate=False,
    )
    assert plan.order == ("c", "a", "b")


def test_rotation_puts_the_member_heard_from_least_recently_first():
    models = roster(a={}, b={}, c={})
    seen = {"a": T0, "b": T0.replace(day=2)}
    plan = route_plan(
        CollectionInfo("x", ("a", "b", "c")), models, TEXT, standing={"a": 0.8}, last_seen=seen, rotate=True
    )
    assert plan.order[0] == "c"


def test_a_turn_too_large_for_every_member_is_a_413():
    models = roster(a={"context_window": 50}, b={"context_window": 60})
    with pytest.raises(TooLarge):
        route_plan(CollectionInfo("x", ("a", "b")), models, TEXT, standing={}, last_seen={}, rotate=False)


def test_no_member_able_to_call_tools_is_a_400_naming_each():
    models = roster(a={"tools": False}, b={})
    facts = TurnFacts(has_tools=True, has_images=False, estimate=10)
    with pytest.raises(BadRequest, match=r"`a`.*`b`"):
        route_plan(CollectionInfo("x", ("a", "b")), models, facts, standing={}, last_seen={}, rotate=False)


def test_an_empty_collection_is_unavailable():
    with pytest.raises(Unavailable):
        route_plan(CollectionInfo("x", ()), {}, TEXT, standing={}, last_seen={}, rotate=False)


def test_the_conversation_key_is_the_same_for_every_turn_and_differs_by_first_message_or_system():
    first = [{"role": "system", "content": "s"}, {"role": "user", "content": "q"}]
    later = [*first, {"role": "assistant", "content": "a"}, {"role": "user", "content": "more"}]
    assert conversation_key("x", "k", first) == conversation_key("x", "k", later)
    assert conversation_key("x", "k", first) != conversation_key("x", "k", [{"role": "user", "content": "q"}])
    assert conversation_key("x", "k", first) != conversation_key("x", "other", first)
    parts = [{"role": "user", "content": [{"type": "text", "text": "q"}]}]
    assert conversation_key("x", "k", parts) == conversation_key("x", "k", [{"role": "user", "content": "q"}])


def test_a_named_session_keys_the_conversation_whatever_its_opening():
    first = [{"role": "system", "content": "s"}, {"role": "user", "content": "q"}]
    other = [{"role": "user", "content": "something else"}]
    assert conversation_key("x", "k", first, "s1") == conversation_key("x", "k", other, "s1")
    assert conversation_key("x", "k", first, "s1") != conversation_key("x", "k", first, "s2")
    assert conversation_key("x", "k", first, "s1") != conversation_key("x", "other", first, "s1")
    assert conversation_key("x", "k", first, "s1") != conversation_key("x", "k", first)


def test_system_entries_after_the_opening_do_not_change_the_conversation_key():
    first = [{"role": "system", "content": "s"}, {"role": "user", "content": "q"}]
    later = [*first, {"role": "system", "content": "agent types"}, {"role": "assistant", "content": "a"}]
    assert conversation_key("x", "k", first) == conversation_key("x", "k", later)


def test_tools_can_be_called_only_by_a_member_that_may_take_turns_and_has_the_fact():
    collection = CollectionInfo("x", ("a", "b", "c"))
    assert not calls_tools(collection, roster(a={}, b={"tools": False}))
    assert not calls_tools(collection, roster(a={"tools": True, "retired": True}))
    assert not calls_tools(collection, roster(a={"tools": True, "ad_hoc": True}))
    assert calls_tools(collection, roster(a={}, c={"tools": True}))


def test_route_verdicts_soon_outweigh_a_members_record_on_general_work():
    book = fit_evidence(
        {("a", "general"): Counts(useful=9, not_useful=1), ("b", "general"): Counts(useful=2, not_useful=8)},
        {"a": "fa", "b": "fb"},
    )
    before = route_standing(book, {}, ["a", "b"])
    assert before["a"] > before["b"]
    after = route_standing(book, {"a": (0, 4), "b": (4, 4)}, ["a", "b"])
    assert after["b"] > after["a"]
