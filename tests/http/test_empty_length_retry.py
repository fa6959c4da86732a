"""An empty answer cut at the token limit (a reasoning model out of budget) is asked once more with
twice the output budget, and recorded as one seat asked twice."""

from __future__ import annotations

from typing import Any

import httpx

from tests.http.helpers import ask, hello, sse_events
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream

THOUGHT = "after some thought: 42"


def seats_of(reply: httpx.Response) -> dict[str, dict[str, Any]]:
    assert reply.status_code == 200, reply.text
    return {seat["alias"]: seat for seat in reply.json()["bench"]["seats"]}


def budgets(upstream: FakeUpstream, model: str, field: str) -> list[Any]:
    return [request.body.get(field) for request in upstream.requests_for(model)]


def test_an_empty_answer_cut_at_the_limit_is_asked_again_with_twice_the_budget(
    bench: Gateway, upstream: FakeUpstream
) -> None:
    upstream.behave("m1", empty_times=1, answer=THOUGHT)
    reply = ask(bench, hello(max_tokens=300))
    m1 = seats_of(reply)["m1"]
    assert (m1["status"], m1["answer"], m1["attempts"]) == ("ok", THOUGHT, 2)
    assert budgets(upstream, "m1", "max_tokens") == [300, 600]
    assert "attempts" not in seats_of(reply)["m2"]
    recorded = bench.api("GET", f"/api/panels/{reply.json()['bench']['panel']}", expect=200)["seats"]
    assert {s["alias"]: s["attempts"] for s in recorded} == {"m1": 2, "m2": 1, "m3": 1}
    assert [s["status"] for s in recorded] == ["ok", "ok", "ok"]
    health = {m["alias"]: m["status"] for m in bench.api("GET", "/api/health", expect=200)["models"]}
    assert health["m1"] == "healthy"


def test_a_call_that_set_no_budget_is_asked_again_with_twice_the_assumed_default_capped_by_the_model(
    bench: Gateway, upstream: FakeUpstream
) -> None:
    bench.api("PATCH", "/api/models/m2", {"max_output": 6000}, expect=200)
    upstream.behave("m1", empty_times=1, answer=THOUGHT)
    upstream.behave("m2", empty_times=1, answer=THOUGHT)
    seats = seats_of(ask(bench, hello()))
    assert seats["m1"]["attempts"] == seats["m2"]["attempts"] == 2
    assert budgets(upstream, "m1", "max_completion_tokens") == [None, 8192]
    assert budgets(upstream, "m2", "max_completion_tokens") == [None, 6000]


def test_a_second_empty_answer_leaves_the_seat_empty_asked_twice(
    bench: Gateway, upstream: FakeUpstream
) -> None:
    upstream.behave("m3", empty_times=2, answer=THOUGHT)
    m3 = seats_of(ask(bench, hello(max_tokens=100)))["m3"]
    assert (m3["status"], m3["answer"], m3["attempts"]) == ("empty", "", 2)
    assert budgets(upstream, "m3", "max_tokens") == [100, 200]


def test_an_empty_answer_that_stopped_on_its_own_is_not_asked_again(
    bench: Gateway, upstream: FakeUpstream
) -> None:
    upstream.behave("m1", empty=True)
    m1 = seats_of(ask(bench, hello(max_tokens=100)))["m1"]
    assert m1["status"] == "empty" and "attempts" not in m1
    assert len(upstream.requests_for("m1")) == 1


def test_a_budget_already_at_the_models_maximum_is_not_asked_again(
    bench: Gateway, upstream: FakeUpstream
) -> None:
    bench.api("PATCH", "/api/models/m1", {"max_output": 500}, expect=200)
    upstream.behave("m1", empty_times=1, answer=THOUGHT)
    m1 = seats_of(ask(bench, hello(max_tokens=500)))["m1"]
    assert m1["status"] == "empty" and "attempts" not in m1
    assert budgets(upstream, "m1", "max_tokens") == [500]


def test_asking_again_can_be_turned_off(bench: Gateway, upstream: FakeUpstream) -> None:
    bench.gateway_settings(retry_empty_length=False)
    upstream.behave("m1", empty_times=1, answer=THOUGHT)
    m1 = seats_of(ask(bench, hello(max_tokens=300)))["m1"]
    assert m1["status"] == "empty" and "attempts" not in m1
    assert len(upstream.requests_for("m1")) == 1


def test_a_streamed_panel_shows_only_the_second_answer(bench: Gateway, upstream: FakeUpstream) -> None:
    upstream.behave("m1", empty_times=1, answer=THOUGHT)
    reply = httpx.post(
        f"{bench.url}/v1/chat/completions", json=hello(stream=True, max_tokens=300), timeout=60
    )
    assert reply.status_code == 200
    events = [event for event in sse_events(reply.text) if isinstance(event, dict)]
    text = "".join(
        choice["delta"].get("content") or "" for event in events for choice in event.get("choices", [])
    )
    assert text.count(THOUGHT) == 1
    [m1] = [
        seat for event in events for seat in event.get("bench", {}).get("seats", []) if seat["alias"] == "m1"
    ]
    assert (m1["status"], m1["attempts"]) == ("ok", 2)
