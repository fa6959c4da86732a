"""Pacing: calls wait for a stated reset that fits their deadline, are refused unsent when it does not,
and hand-set limits hold across gateway processes."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta

from tests.http.helpers import ask, hello
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream

GEMINI_DAILY_429 = {
    "error": {
        "code": 429,
        "message": "You exceeded your current quota",
        "status": "RESOURCE_EXHAUSTED",
        "details": [
            {
                "@type": "type.googleapis.com/google.rpc.QuotaFailure",
                "violations": [
                    {"quotaId": "GenerateRequestsPerDayPerProjectPerModel-FreeTier", "quotaValue": "50"}
                ],
            },
            {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "40s"},
        ],
    }
}


def solo(bench: Gateway, deadline_s: float = 4) -> None:
    """Collection `solo`: m1 alone, no explorers, seats given `deadline_s`."""
    bench.save_collection("solo", ["m1"])
    bench.gateway_settings(max_calls=1, max_explorers=0, seat_deadline_s=deadline_s)


def seat_of(gateway: Gateway) -> dict:
    return ask(gateway, hello("bench/solo")).json()["bench"]["seats"][0]


def test_a_used_up_window_makes_the_next_call_wait_for_its_reset(bench: Gateway, upstream: FakeUpstream):
    solo(bench)
    upstream.behave(
        "m1",
        headers={
            "x-ratelimit-limit-requests": "10",
            "x-ratelimit-remaining-requests": "0",
            "x-ratelimit-reset-requests": "1.5s",
        },
    )
    assert seat_of(bench)["status"] == "ok"
    assert seat_of(bench)["status"] == "ok"
    first, second = upstream.requests_for("m1")
    assert second.at - first.at >= 1.3, "the second call did not wait for the stated reset"


def test_a_reset_past_the_deadline_is_refused_without_sending(bench: Gateway, upstream: FakeUpstream):
    solo(bench)
    upstream.behave(
        "m1",
        headers={
            "anthropic-ratelimit-requests-limit": "50",
            "anthropic-ratelimit-requests-remaining": "0",
            "anthropic-ratelimit-requests-reset": (datetime.now(UTC) + timedelta(minutes=10)).isoformat(),
        },
    )
    assert seat_of(bench)["status"] == "ok"
    started = time.monotonic()
    refused = seat_of(bench)
    assert refused["status"] == "error" and refused["error"].startswith("capacity: not sent")
    assert "after this call's deadline" in refused["error"]
    assert time.monotonic() - started < 2, "a refusal that cannot fit should not wait"
    assert len(upstream.requests_for("m1")) == 1
    stated = bench.api("GET", "/api/limits")["stated"]
    assert [(s["served_id"], s["remaining"], s["style"]) for s in stated] == [("m1", 0, "anthropic")]


def test_a_gemini_429_rests_the_model_until_its_retry_delay(bench: Gateway, upstream: FakeUpstream):
    solo(bench)
    upstream.behave("m1", status=429, error_body=GEMINI_DAILY_429, fail_times=1)
    assert seat_of(bench)["status"] == "error"
    assert seat_of(bench)["error"].startswith("capacity: not sent")
    assert len(upstream.requests_for("m1")) == 1, "the model was called again before its quota came back"
    (stated,) = bench.api("GET", "/api/limits")["stated"]
    assert (stated["style"], stated["most"], stated["remaining"]) == ("gemini", 50, 0)


def test_openrouter_limits_inside_a_429_body(bench: Gateway, upstream: FakeUpstream):
    solo(bench)
    reset = str(int((time.time() + 3600) * 1000))
    body = {
        "error": {
            "message": "Rate limit exceeded: free-models-per-day",
            "code": 429,
            "metadata": {
                "headers": {
                    "X-RateLimit-Limit": "50",
                    "X-RateLimit-Remaining": "0",
                    "X-RateLimit-Reset": reset,
                }
            },
        }
    }
    upstream.behave("m1", status=429, error_body=body, fail_times=1)
    seat_of(bench)
    assert seat_of(bench)["error"].startswith("capacity: not sent")
    assert len(upstream.requests_for("m1")) == 1


def test_a_hand_set_rpm_holds_across_two_gateway_processes(bench: Gateway, upstream: FakeUpstream):
    solo(bench, deadline_s=3)
    bench.api(
        "POST",
        "/api/limits",
        {"endpoint": "up", "served_id": "m1", "measure": "requests", "window": "minute", "most": 3},
        expect=201,
    )
    other = bench.sibling().start()
    try:
        if datetime.now(UTC).second >= 50:  # let all six land in one minute
            time.sleep(61 - datetime.now(UTC).second)
        with ThreadPoolExecutor(6) as pool:
            seats = list(pool.map(lambda g: seat_of(g), [bench, other] * 3))
    finally:
        other.close()
    assert len(upstream.requests_for("m1")) == 3
    assert sorted(s["status"] for s in seats) == ["error"] * 3 + ["ok"] * 3
    refusals = [s["error"] for s in seats if s["status"] == "error"]
    assert all("limited to 3 requests a minute (m1)" in why for why in refusals), refusals
    (rule,) = bench.api("GET", "/api/limits")["rules"]
    assert (rule["used"], rule["most"]) == (3, 3)


def test_a_token_rule_stops_calls_once_spent(bench: Gateway, upstream: FakeUpstream):
    solo(bench)
    upstream.behave("m1", usage=(400, 200))
    bench.api(
        "POST",
        "/api/limits",
        {"endpoint": "up", "measure": "tokens", "window": "day", "most": 500},
        expect=201,
    )
    assert seat_of(bench)["status"] == "ok"
    assert seat_of(bench)["error"].startswith("capacity: not sent")
    assert len(upstream.requests_for("m1")) == 1
    (rule,) = bench.api("GET", "/api/limits")["rules"]
    assert rule["used"] == 600


def test_rules_are_checked_and_audited(bench: Gateway, upstream: FakeUpstream):
    bad = bench.api(
        "POST", "/api/limits", {"endpoint": "up", "measure": "requests", "window": "hour", "most": 3}
    )
    assert bad["error"]["field"] == "window"
    unknown = bench.api(
        "POST", "/api/limits", {"endpoint": "nope", "measure": "requests", "window": "day", "most": 3}
    )
    assert unknown["error"]["field"] == "endpoint"
    rule = bench.api(
        "POST",
        "/api/limits",
        {"endpoint": "up", "measure": "requests", "window": "day", "most": 3},
        expect=201,
    )
    bench.api("DELETE", f"/api/limits/{rule['id']}", expect=204)
    assert bench.api("GET", "/api/limits")["rules"] == []
    actions = [c["action"] for c in bench.api("GET", "/api/audit?entity=rate_rule")["changes"]]
    assert actions == ["delete", "set"]
