"""Onboarding candidates: what each endpoint serves that the bench lacks; dismissed ones kept apart until
undismissed, in the database."""

from __future__ import annotations

from typing import Any

import httpx

from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream


def candidates(gateway: Gateway, query: str = "") -> dict[str, Any]:
    found: dict[str, Any] = gateway.api("GET", f"/api/onboarding/candidates{query}", expect=200)
    return found


def served_ids(entries: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(entry["endpoint"], entry["served_id"]) for entry in entries]


def test_candidates_are_what_endpoints_serve_and_the_bench_lacks(bench: Gateway, upstream: FakeUpstream):
    upstream.listed(["m1", "m2", "m3", "org/new-a:free", "new-b"])
    bench.api("POST", "/api/models/m3/retire", {}, expect=200)
    found = candidates(bench)
    assert served_ids(found["candidates"]) == [("up", "new-b"), ("up", "org/new-a:free")]
    assert found["candidates"][1] == {
        "endpoint": "up",
        "served_id": "org/new-a:free",
        "alias": "new-a-free",
        "queued": False,
        "dismissed_at": None,
        "dismissed_by": None,
    }
    assert (found["dismissed"], found["unreachable"]) == ([], [])


def test_dismissed_candidates_stay_apart_until_undismissed(bench: Gateway, upstream: FakeUpstream) -> None:
    upstream.listed(["m1", "new-a", "new-b"])
    body = {"endpoint": "up", "served_ids": ["new-b", "not-served"]}
    dismissed = bench.api("POST", "/api/onboarding/candidates/dismiss", body, expect=200)
    assert dismissed == {"ok": True, "endpoint": "up", "changed": ["new-b", "not-served"]}
    again = bench.api("POST", "/api/onboarding/candidates/dismiss", body, expect=200)
    assert again["changed"] == [], "dismissing twice changes nothing"
    found = candidates(bench)
    assert served_ids(found["candidates"]) == [("up", "new-a")]
    assert served_ids(found["dismissed"]) == [("up", "new-b")]
    assert found["dismissed"][0]["dismissed_by"] == "local"

    undone = bench.api(
        "POST",
        "/api/onboarding/candidates/undismiss",
        {"endpoint": "up", "served_ids": ["new-b"]},
        expect=200,
    )
    assert undone["changed"] == ["new-b"]
    assert served_ids(candidates(bench)["candidates"]) == [("up", "new-a"), ("up", "new-b")]
    audit = bench.api("GET", "/api/audit?entity=candidate", expect=200)["changes"]
    assert [(row["action"], row["key"]) for row in audit] == [("undismiss", "up"), ("dismiss", "up")]


def test_dismissals_outlive_the_gateway_process(bench: Gateway, upstream: FakeUpstream) -> None:
    upstream.listed(["new-a"])
    bench.api(
        "POST", "/api/onboarding/candidates/dismiss", {"endpoint": "up", "served_ids": ["new-a"]}, expect=200
    )
    bench.stop()
    bench.start()
    assert served_ids(candidates(bench)["dismissed"]) == [("up", "new-a")]


def test_a_candidate_waiting_in_the_queue_is_marked_queued(bench: Gateway, upstream: FakeUpstream):
    upstream.behave("new-a", hang=True)
    upstream.listed(["m1", "new-a"])
    bench.api(
        "POST",
        "/api/onboarding",
        {"items": [{"endpoint": "up", "served_id": "new-a"}], "probe_deadline_s": 60},  # waits while we look
        expect=202,
    )
    (entry,) = candidates(bench)["candidates"]
    assert (entry["served_id"], entry["queued"]) == ("new-a", True)


def test_one_endpoint_or_an_unreachable_one(bench: Gateway, upstream: FakeUpstream) -> None:
    upstream.listed(["m1", "new-a"])
    bench.add_endpoint("second", upstream.url)
    upstream.require_key = "sk-required-now"  # both listings refuse from here on
    found = candidates(bench, "?endpoint=second")
    assert found["candidates"] == []
    assert [failure["endpoint"] for failure in found["unreachable"]] == ["second"]
    assert "its model listing did not answer" in found["unreachable"][0]["why"]
    missing = httpx.get(f"{bench.url}/api/onboarding/candidates?endpoint=nowhere", timeout=30)
    assert missing.status_code == 404
    assert missing.json()["error"] == {
        "message": "no endpoint named `nowhere`; endpoints: second, up",
        "field": "endpoint",
    }


def test_dismissing_is_checked(bench: Gateway) -> None:
    def refused(body: Any) -> tuple[int, str | None]:
        response = httpx.post(f"{bench.url}/api/onboarding/candidates/dismiss", json=body, timeout=30)
        return response.status_code, response.json()["error"]["field"]

    assert refused({"endpoint": "nowhere", "served_ids": ["x"]}) == (400, "endpoint")
    assert refused({"endpoint": "up", "served_ids": []}) == (400, "served_ids")
    assert refused({"endpoint": "up", "served_ids": [""]}) == (400, "served_ids[0]")
    assert refused({"endpoint": "up"}) == (400, "served_ids")
