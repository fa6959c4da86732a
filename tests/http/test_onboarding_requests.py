"""Asking to onboard: a batch is checked whole before any of it is queued, and each refusal names the
item and field at fault in the admin API's error shape."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.http.onboarding_helpers import queue
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream


@pytest.fixture
def served(bench: Gateway, upstream: FakeUpstream) -> Gateway:
    """The bench (m1–m3 on `up`), with `up` also serving new-a and new-b."""
    upstream.listed(["m1", "m2", "m3", "new-a", "new-b"])
    return bench


def refusal(gateway: Gateway, body: Any) -> tuple[int, str, str | None]:
    response = httpx.post(f"{gateway.url}/api/onboarding", json=body, timeout=30)
    error = response.json()["error"]
    return response.status_code, error["message"], error["field"]


def items(*pairs: tuple[str, str], **extra: Any) -> dict[str, Any]:
    return {
        "items": [{"endpoint": endpoint, "served_id": served_id} for endpoint, served_id in pairs],
        **extra,
    }


def test_an_empty_batch_is_refused(served: Gateway) -> None:
    assert refusal(served, {"items": []}) == (
        400,
        "`items` is empty: name at least one model to onboard",
        "items",
    )
    status, message, field = refusal(served, {})
    assert (status, field) == (400, "items") and "`items` is required" in message


def test_an_unknown_endpoint_is_refused_naming_the_known_ones(served: Gateway) -> None:
    status, message, field = refusal(served, items(("up", "new-a"), ("elsewhere", "x1")))
    assert (status, field) == (400, "items[1].endpoint")
    assert message == "no endpoint named `elsewhere`; endpoints: up"


def test_a_model_already_on_the_bench_is_refused(served: Gateway) -> None:
    status, message, field = refusal(served, items(("up", "new-a"), ("up", "m2")))
    assert (status, field) == (400, "items[1].served_id")
    assert message == "`m2` on `up` is on the bench already as `m2`"


def test_a_retired_model_is_refused_with_the_way_back(served: Gateway) -> None:
    served.api("POST", "/api/models/m3/retire", {}, expect=200)
    status, message, field = refusal(served, items(("up", "m3")))
    assert (status, field) == (400, "items[0].served_id")
    assert "was retired from the bench as `m3`; restore it instead" in message


def test_a_served_id_the_endpoint_does_not_list_is_refused_with_close_ids(served: Gateway) -> None:
    status, message, field = refusal(served, items(("up", "new-c")))
    assert (status, field) == (400, "items[0].served_id")
    assert message.startswith(
        "`up` does not serve `new-c` (its model listing does not name it); did you mean"
    )
    assert "`new-a`" in message and "`new-b`" in message and "`m1`" not in message


def test_twice_in_one_batch_or_already_queued_is_refused(served: Gateway, upstream: FakeUpstream) -> None:
    status, message, field = refusal(served, items(("up", "new-a"), ("up", "new-a")))
    assert (status, field) == (400, "items[1].served_id") and "asked for twice" in message
    upstream.behave("new-b", hang=True)
    served.api("POST", "/api/onboarding", items(("up", "new-b"), probe_deadline_s=60), expect=202)
    status, message, field = refusal(served, items(("up", "new-b")))
    assert (status, field) == (400, "items[0].served_id") and "in the onboarding queue already" in message


def test_aliases_are_checked(served: Gateway) -> None:
    taken = {"items": [{"endpoint": "up", "served_id": "new-a", "alias": "m1"}]}
    status, message, field = refusal(served, taken)
    assert (status, field) == (400, "items[0].alias") and "alias `m1` is taken" in message
    bad = {"items": [{"endpoint": "up", "served_id": "new-a", "alias": "-no"}]}
    assert refusal(served, bad)[2] == "items[0].alias"
    same = {"items": [{"endpoint": "up", "served_id": sid, "alias": "twin"} for sid in ("new-a", "new-b")]}
    status, message, field = refusal(served, same)
    assert (status, field) == (400, "items[1].alias") and "asked for twice" in message


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"items": "new-a"}, "items"),
        ({"items": ["new-a"]}, "items[0]"),
        ({"items": [{"endpoint": "up"}]}, "items[0].served_id"),
        ({"items": [{"endpoint": "up", "served_id": "new-a", "role": "code"}]}, "items[0].role"),
        ({**items(("up", "new-a")), "suite": "thorough"}, "suite"),
        ({**items(("up", "new-a")), "probe_deadline_s": 0}, "probe_deadline_s"),
        ({**items(("up", "new-a")), "when": "now"}, "when"),
    ],
)
def test_malformed_bodies_are_refused_naming_the_field(served: Gateway, body: Any, field: str) -> None:
    status, _, at = refusal(served, body)
    assert (status, at) == (400, field)


def test_a_refused_batch_queues_nothing_and_calls_nothing(served: Gateway, upstream: FakeUpstream) -> None:
    refusal(served, items(("up", "new-a"), ("up", "m1")))
    assert queue(served)["items"] == []
    assert upstream.requests == []
    assert [m["alias"] for m in served.api("GET", "/api/models", expect=200)["models"]] == ["m1", "m2", "m3"]


def test_an_endpoint_whose_listing_fails_is_given_the_benefit_of_the_doubt(
    gateway: Gateway, upstream: FakeUpstream
) -> None:
    gateway.add_endpoint("up", upstream.url)
    upstream.require_key = "sk-now-required"  # its listing refuses from here on
    queued = gateway.api("POST", "/api/onboarding", items(("up", "unlisted")), expect=202)
    assert [item["served_id"] for item in queued["items"]] == ["unlisted"]
