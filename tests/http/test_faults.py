"""One seat's upstream misbehaving costs that seat only: the reply is 200 and everything is recorded."""

from __future__ import annotations

from typing import Any

import pytest

from tests.http.helpers import ask, hello
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream

FAULTS: dict[str, dict[str, Any]] = {
    "500": {"status": 500, "error_message": "upstream exploded"},
    "429": {"status": 429, "error_message": "rate limit reached", "retry_after": 1},
    "hang": {"hang": True},
    "reset mid-stream": {"reset_after": 1, "chunks": 3},
    "garbage": {"garbage": True},
}


@pytest.mark.parametrize("fault", list(FAULTS))
def test_one_faulty_seat_is_an_error_and_the_others_answer(
    bench: Gateway, upstream: FakeUpstream, fault: str
):
    bench.gateway_settings(seat_deadline_s=3)
    upstream.behave("m2", **FAULTS[fault])
    response = ask(bench, hello())
    assert response.status_code == 200
    seats = {s["alias"]: s for s in response.json()["bench"]["seats"]}
    assert seats["m1"]["status"] == "ok" and seats["m3"]["status"] == "ok"
    assert seats["m2"]["status"] == "error" and seats["m2"]["error"]
    recorded = bench.api("GET", f"/api/panels/{response.json()['bench']['panel']}", expect=200)
    assert {s["alias"]: s["status"] for s in recorded["seats"]} == {"m1": "ok", "m2": "error", "m3": "ok"}
    assert recorded["seats"][1]["error"] == seats["m2"]["error"]


def test_hanging_seat_is_cut_at_its_deadline(bench: Gateway, upstream: FakeUpstream):
    bench.gateway_settings(seat_deadline_s=2)
    upstream.behave("m3", hang=True)
    seats = {s["alias"]: s for s in ask(bench, hello()).json()["bench"]["seats"]}
    assert seats["m3"]["status"] == "error" and "timeout" in seats["m3"]["error"]
    assert 1.5 <= seats["m3"]["seconds"] < 4


def test_empty_answer_is_an_empty_seat(bench: Gateway, upstream: FakeUpstream):
    upstream.behave("m1", empty=True)
    seats = {s["alias"]: s for s in ask(bench, hello()).json()["bench"]["seats"]}
    assert seats["m1"]["status"] == "empty" and seats["m2"]["status"] == "ok"
