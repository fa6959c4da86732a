"""The onboarding queue through the admin API: register → probe → suite, one model at a time, kept in the
database across a restart, worked by one gateway process at a time."""

from __future__ import annotations

from datetime import datetime
from itertools import pairwise

from tests.http.onboarding_helpers import (
    by_alias,
    onboard,
    onboard_calls,
    queue,
    steps,
    wait_for_queue,
    wait_for_request,
    wait_until,
)
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream

PROBE_BODIES = ["ready", "ready", "tools", "reasoning"]
REVIEW = "VERDICT: TRUE\nThe function does what the claim says; every branch was read line by line."


def probe_kinds(upstream: FakeUpstream, model: str) -> list[str]:
    """What each probe call the upstream got for `model` asked (the first four calls: the suite's follow):
    the one-word question, a tool call, or the sum."""
    kinds = []
    for request in upstream.requests_for(model)[: len(PROBE_BODIES)]:
        question = request.body["messages"][0]["content"]
        kinds.append("tools" if "tools" in request.body else "reasoning" if "times" in question else "ready")
    return kinds


def test_a_batch_with_a_silent_model_survives_a_restart_in_the_middle(
    crashable_gateway: Gateway, upstream: FakeUpstream
) -> None:
    gateway = crashable_gateway
    upstream.behave("org/alpha", answer=REVIEW)
    upstream.behave("silent", hang=True)
    upstream.behave("gamma", answer=REVIEW)
    gateway.add_endpoint("up", upstream.url)
    queued = onboard(gateway, "org/alpha", "silent", "gamma", probe_deadline_s=4, suite="quick")  # then kill
    assert [item["state"] for item in queued["items"]] == ["queued"] * 3

    wait_for_request(upstream, "silent")  # alpha is done; the silent model's probe hangs
    assert by_alias(queue(gateway))["silent"]["state"] == "running"
    assert onboard_calls(gateway) == [("alpha", "ok", None)] * 4
    gateway.kill()
    gateway.start()

    shown = wait_for_queue(gateway)
    alpha, silent, gamma = (by_alias(shown)[alias] for alias in ("alpha", "silent", "gamma"))
    assert (alpha["state"], alpha["starts"]) == ("done", 1)
    assert (silent["state"], silent["starts"]) == ("unavailable", 2), "resumed at its probe step"
    assert "no answer to the one-word probe" in silent["why"] and "timeout" in silent["why"]
    assert steps(silent) == {"register": "done", "probe": "failed", "suite": "skipped"}
    assert (gamma["state"], gamma["starts"]) == ("done", 1)
    for item in (alpha, gamma):
        assert steps(item) == {"register": "done", "probe": "done", "suite": "done"}
        assert [probe["probe"] for probe in item["probes"]] == ["ready", "speed", "tools", "reasoning"]
    assert gateway.api("GET", "/api/suite/answers?model=silent", expect=200)["answers"] == []
    for alias, served_id in (("alpha", "org/alpha"), ("gamma", "gamma")):
        answers = gateway.api("GET", f"/api/suite/answers?model={alias}", expect=200)["answers"]
        assert answers and all(answer["status"] == "ok" and answer["counted"] for answer in answers)
        assert len(upstream.requests_for(served_id)) == len(PROBE_BODIES) + len(answers)
    assert probe_kinds(upstream, "org/alpha") == PROBE_BODIES
    assert probe_kinds(upstream, "gamma") == PROBE_BODIES
    assert len(upstream.requests_for("silent")) == 2, "once before the restart, once after"

    models = {m["alias"]: m for m in gateway.api("GET", "/api/models", expect=200)["models"]}
    assert (models["silent"]["ad_hoc"], models["alpha"]["ad_hoc"], models["gamma"]["ad_hoc"]) == (
        True,
        False,
        False,
    ), "the silent model stays registered, ad hoc; the others leave ad hoc once onboarded"
    calls = onboard_calls(gateway)
    assert calls.count(("alpha", "ok", None)) == 4 and calls.count(("gamma", "ok", None)) == 4
    assert ("silent", "error", "timeout") in calls
    health = gateway.api("GET", "/api/health/silent", expect=200)["model"]
    assert health["last_answer_at"] is None and "onboard call" in health["why"]


def test_one_model_is_worked_at_a_time_in_queue_order(gateway: Gateway, upstream: FakeUpstream) -> None:
    upstream.behave("one", delay=0.2)
    upstream.behave("two", delay=0.2)
    gateway.add_endpoint("up", upstream.url)
    onboard(gateway, "one", "two", suite="quick")
    items = wait_for_queue(gateway)["items"]
    first, second = (
        (datetime.fromisoformat(item["started_at"]), datetime.fromisoformat(item["finished_at"]))
        for item in items
    )
    assert first[1] <= second[0], "the second began once the first had ended"
    asked = [r.model for r in upstream.requests]
    assert asked == sorted(asked) and asked.count("one") == asked.count("two") > 4, "probe and suite, in turn"


def test_two_gateway_processes_work_the_queue_once_between_them(gateway: Gateway, upstream: FakeUpstream):
    for model in ("a1", "a2", "b1", "b2"):
        upstream.behave(model, delay=0.1)
    gateway.add_endpoint("up", upstream.url)
    other = gateway.sibling().start()
    try:
        onboard(gateway, "a1", "a2", suite="quick")
        onboard(other, "b1", "b2", suite="quick")
        shown = wait_for_queue(other)
    finally:
        other.close()
    assert [(item["alias"], item["state"], item["starts"]) for item in shown["items"]] == [
        (alias, "done", 1) for alias in ("a1", "a2", "b1", "b2")
    ]
    for model in ("a1", "a2", "b1", "b2"):
        assert probe_kinds(upstream, model) == PROBE_BODIES, f"{model} was probed once"
    spans = sorted(
        (datetime.fromisoformat(item["started_at"]), datetime.fromisoformat(item["finished_at"]))
        for item in shown["items"]
    )
    assert all(earlier[1] <= later[0] for earlier, later in pairwise(spans)), "one at a time"


def test_quick_adhoc_asks_the_quick_sample_and_keeps_the_model_ad_hoc(
    gateway: Gateway, upstream: FakeUpstream
):
    upstream.behave("q1", answer=REVIEW)
    gateway.add_endpoint("up", upstream.url)
    onboard(gateway, "q1", suite="quick+adhoc")
    (item,) = wait_for_queue(gateway)["items"]
    assert item["state"] == "done" and steps(item)["suite"] == "done"
    every_task = gateway.api("GET", "/api/suite/tasks", expect=200)["tasks"]
    asked = len(upstream.requests_for("q1")) - len(PROBE_BODIES)
    assert 0 < asked < len(every_task), "a few tasks of each shape, not the whole suite"
    assert f"asked {asked} task(s)" in item["steps"][2]["detail"]
    assert gateway.api("GET", "/api/models/q1", expect=200)["model"]["ad_hoc"] is True


def test_a_model_that_did_not_answer_can_be_onboarded_again(gateway: Gateway, upstream: FakeUpstream):
    upstream.behave("later", status=404)
    gateway.add_endpoint("up", upstream.url)
    onboard(gateway, "later")
    (first,) = wait_for_queue(gateway)["items"]
    assert first["state"] == "unavailable" and "structural" in first["why"]
    upstream.behave("later")
    onboard(gateway, "later")
    second = wait_until(gateway, lambda shown: shown["waiting"] == 0 and len(shown["items"]) == 2)["items"][1]
    assert (second["state"], second["model_id"]) == ("done", first["model_id"]), "the same model, probed anew"
    assert gateway.api("GET", "/api/models/later", expect=200)["model"]["ad_hoc"] is False
    assert len(gateway.api("GET", "/api/models", expect=200)["models"]) == 1


def test_stop_ends_what_has_not_begun_and_stops_the_running_model_after_its_call(
    gateway: Gateway, upstream: FakeUpstream
) -> None:
    upstream.behave("slow", hang=True)
    upstream.behave("next")
    gateway.add_endpoint("up", upstream.url)
    onboard(gateway, "slow", "next", probe_deadline_s=6)  # the stop is asked well within its one call
    wait_for_request(upstream, "slow")
    assert gateway.api("POST", "/api/onboarding/stop", expect=200) == {
        "ok": True,
        "stopped": 1,
        "stopping": 1,
    }
    shown = wait_for_queue(gateway)
    slow, following = by_alias(shown)["slow"], by_alias(shown)["next"]
    assert slow["state"] == "stopped" and "stopped by local at its probe step" in slow["why"]
    assert following["state"] == "stopped" and "before it began" in following["why"]
    assert upstream.requests_for("next") == []
    cleared = gateway.api("DELETE", "/api/onboarding", expect=200)
    assert cleared == {"ok": True, "cleared": 2}
    assert queue(gateway) == {"items": [], "waiting": 0, "worker": None}
    assert gateway.api("GET", "/api/models/slow", expect=200)["model"]["ad_hoc"] is True
