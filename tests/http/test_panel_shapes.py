"""A panel's shape, decided per request: the shape rules, or the gateway's decision model when it names one.

The bench: collection `core` (m1–m3) with two explorer seats, `coder` (a
`code` model: only review and code panels may seat it) and `scribe` (a
general model) to fill them, and `dm`, an ad hoc model never seated that
the gateway may name as its decision model.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from tests.http.helpers import ask
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream

CODE_REVIEW = (
    "Please review this function for bugs:\n```python\ndef mean(xs):\n    return sum(xs) / len(xs) + 1\n```"
)
QUICK = "What is the capital of Peru?"


@pytest.fixture
def explorers(bench: Gateway, upstream: FakeUpstream) -> Gateway:
    upstream.serve("coder", "scribe", "dm")
    bench.add_model("coder", role="code")
    bench.add_model("scribe")
    bench.add_model("dm", ad_hoc=True)
    bench.gateway_settings(max_calls=5, max_explorers=2)
    return bench


def panel(gateway: Gateway, prompt: str) -> dict[str, Any]:
    body = {"model": "bench/core", "messages": [{"role": "user", "content": prompt}]}
    reply = ask(gateway, body)
    assert reply.status_code == 200, reply.text
    bench: dict[str, Any] = reply.json()["bench"]
    return bench


def explorer_aliases(bench: dict[str, Any]) -> set[str]:
    return {seat["alias"] for seat in bench["seats"] if seat["seat"].startswith("explorer")}


def test_the_rules_decide_a_code_review_request_is_a_review(explorers: Gateway, upstream: FakeUpstream):
    bench = panel(explorers, CODE_REVIEW)
    assert (bench["shape"], bench["shape_by"]) == ("review", "rules")
    assert explorer_aliases(bench) == {"coder", "scribe"}  # a code model sits only because it is a review


def test_the_shape_and_who_decided_it_are_in_the_replys_heading(explorers: Gateway, upstream: FakeUpstream):
    body = {"model": "bench/core", "messages": [{"role": "user", "content": CODE_REVIEW}]}
    content = ask(explorers, body).json()["choices"][0]["message"]["content"]
    assert "shape review (rules)" in content


def test_a_quick_question_does_not_seat_a_code_model(explorers: Gateway, upstream: FakeUpstream):
    bench = panel(explorers, QUICK)
    assert (bench["shape"], bench["shape_by"]) == ("quick", "rules")
    assert "coder" not in explorer_aliases(bench)


def test_the_collections_shape_beats_the_rules(explorers: Gateway, upstream: FakeUpstream):
    explorers.save_collection("core", ["m1", "m2", "m3"], shape="prose")
    bench = panel(explorers, CODE_REVIEW)
    assert (bench["shape"], bench["shape_by"]) == ("prose", "collection")


def test_the_decision_model_decides_when_set(explorers: Gateway, upstream: FakeUpstream):
    explorers.gateway_settings(decision_model="dm")
    upstream.behave("dm", answer="code")
    bench = panel(explorers, QUICK)
    assert (bench["shape"], bench["shape_by"]) == ("code", "model")
    assert "coder" in explorer_aliases(bench)
    [question] = upstream.requests_for("dm")
    assert QUICK in question.body["messages"][-1]["content"]
    assert "dm" not in {seat["alias"] for seat in bench["seats"]}


def test_the_decision_models_call_is_in_the_ledger_as_a_shape_call(
    explorers: Gateway, upstream: FakeUpstream
):
    explorers.gateway_settings(decision_model="dm")
    upstream.behave("dm", answer="Quick.")
    assert panel(explorers, CODE_REVIEW)["shape"] == "quick"
    [row] = [row for row in explorers.api("GET", "/api/usage")["recent"] if row["alias"] == "dm"]
    assert (row["purpose"], row["status"]) == ("shape", "ok")


def test_the_rules_decide_when_the_decision_model_fails(explorers: Gateway, upstream: FakeUpstream):
    explorers.gateway_settings(decision_model="dm")
    upstream.behave("dm", status=500)
    bench = panel(explorers, CODE_REVIEW)
    assert (bench["shape"], bench["shape_by"]) == ("review", "rules")
    assert len(upstream.requests_for("dm")) == 1  # one attempt: a panel does not wait on retries


def test_the_rules_decide_within_three_seconds_when_the_decision_model_is_slow(
    explorers: Gateway, upstream: FakeUpstream
):
    explorers.gateway_settings(decision_model="dm")
    upstream.behave("dm", answer="code", delay=5)
    began = time.monotonic()
    bench = panel(explorers, CODE_REVIEW)
    took = time.monotonic() - began
    assert (bench["shape"], bench["shape_by"]) == ("review", "rules")
    assert 2.5 < took < 4.5


def test_the_rules_decide_when_the_decision_model_answers_more_than_a_shape_word(
    explorers: Gateway, upstream: FakeUpstream
):
    explorers.gateway_settings(decision_model="dm")
    upstream.behave("dm", answer="I think this is code")
    assert panel(explorers, QUICK)["shape_by"] == "rules"


def test_the_decision_model_is_not_asked_when_no_explorer_seat_is_chosen_by_shape(
    bench: Gateway, upstream: FakeUpstream
):
    upstream.serve("dm")
    bench.add_model("dm", ad_hoc=True)
    bench.gateway_settings(decision_model="dm")  # the bench fixture allows no explorers
    reply = panel(bench, CODE_REVIEW)
    assert (reply["shape"], reply["shape_by"]) == ("review", "rules")
    assert upstream.requests_for("dm") == []


def test_an_unknown_decision_model_is_refused_naming_it(explorers: Gateway, upstream: FakeUpstream):
    refused = explorers.api("PATCH", "/api/settings/gateway", {"decision_model": "nobody"})
    assert refused["error"]["field"] == "decision_model"
    assert "`nobody` is not a model on the bench" in refused["error"]["message"]
    explorers.api("PATCH", "/api/settings/gateway", {"decision_model": "nobody"}, expect=400)
    assert explorers.api("GET", "/api/settings/gateway")["gateway"]["decision_model"] == ""


def test_the_decision_model_is_cleared_with_an_empty_value(explorers: Gateway, upstream: FakeUpstream):
    explorers.gateway_settings(decision_model="dm")
    cleared = explorers.gateway_settings(decision_model="")
    assert cleared["gateway"]["decision_model"] == ""
