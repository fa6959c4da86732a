"""Seating skips models cooling down: after a provider says to wait, the next panels seat someone else
until the wait is over, on every gateway process; route mode asks them last."""

from __future__ import annotations

import re
import time
from datetime import datetime
from typing import Any

from tests.http.helpers import ask, hello
from tests.http.route_helpers import FIRST, arrange_agents
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream

COOLING = re.compile(r"cooling down until (\d\d:\d\d:\d\d) UTC \(rate limit\)")


def panel(gateway: Gateway, collection: str, **extra: Any) -> dict[str, Any]:
    reply = ask(gateway, hello(f"bench/{collection}", **extra))
    assert reply.status_code == 200, reply.text
    return reply.json()["bench"]


def seated(bench: dict[str, Any]) -> list[str]:
    return [seat["alias"] for seat in bench["seats"]]


def told_to_wait(gateway: Gateway, upstream: FakeUpstream, collection: str, seconds: float) -> None:
    """Ask a panel in which m2 answers 429 with `retry-after: <seconds>`, too long to wait for."""
    upstream.behave("m2", status=429, retry_after=seconds, fail_times=1)
    refused = {seat["alias"]: seat for seat in panel(gateway, collection)["seats"]}["m2"]
    assert refused["status"] == "error" and refused["error"].startswith("capacity:")


def cooling_until(gateway: Gateway, served_id: str) -> str:
    """When the provider said `served_id` may be asked again (`GET /api/limits`), as HH:MM:SS UTC."""
    (row,) = [row for row in gateway.api("GET", "/api/limits")["stated"] if row["served_id"] == served_id]
    return f"{datetime.fromisoformat(row['retry_at']):%H:%M:%S}"


def test_a_member_told_to_wait_gives_its_seat_to_the_next_member(bench: Gateway, upstream: FakeUpstream):
    upstream.serve("m4")
    bench.add_model("m4")
    bench.save_collection("four", ["m1", "m2", "m3", "m4"])
    bench.gateway_settings(seat_deadline_s=5)
    told_to_wait(bench, upstream, "four", 60)
    assert upstream.requests_for("m4") == [], "m4 is past the three calls a panel makes"
    second = panel(bench, "four")
    assert seated(second) == ["m1", "m3", "m4"]
    assert all(seat["status"] == "ok" for seat in second["seats"])
    assert len(upstream.requests_for("m2")) == 1, "m2 was asked again while cooling down"
    (skip,) = second["skipped"]
    assert (skip["seat"], skip["alias"]) == ("member", "m2")
    found = COOLING.fullmatch(skip["why"])
    assert found, skip["why"]
    assert found.group(1) == cooling_until(bench, "m2")


def test_a_member_cooling_down_gives_its_seat_to_an_explorer(bench: Gateway, upstream: FakeUpstream):
    bench.save_collection("pair", ["m1", "m2"])
    bench.gateway_settings(max_calls=2, max_explorers=1, seat_deadline_s=5)
    told_to_wait(bench, upstream, "pair", 60)
    second = panel(bench, "pair")
    kinds = [(seat["seat"], seat["alias"]) for seat in second["seats"]]
    assert kinds == [("member", "m1"), ("explorer", "m3")]
    assert [skip["alias"] for skip in second["skipped"]] == ["m2"]
    assert len(upstream.requests_for("m2")) == 1


def test_a_member_sits_again_once_its_cooldown_is_over(bench: Gateway, upstream: FakeUpstream):
    bench.gateway_settings(seat_deadline_s=2)
    told_to_wait(bench, upstream, "core", 3)
    resting = panel(bench, "core")
    assert seated(resting) == ["m1", "m3"]
    assert [skip["alias"] for skip in resting["skipped"]] == ["m2"]
    time.sleep(3.2)
    back = panel(bench, "core")
    assert seated(back) == ["m1", "m2", "m3"] and "skipped" not in back
    assert [seat["status"] for seat in back["seats"]] == ["ok", "ok", "ok"]
    assert len(upstream.requests_for("m2")) == 2


def test_a_wait_learned_by_one_gateway_process_holds_on_another(bench: Gateway, upstream: FakeUpstream):
    bench.gateway_settings(seat_deadline_s=5)
    told_to_wait(bench, upstream, "core", 60)
    other = bench.sibling().start()
    try:
        elsewhere = panel(other, "core")
    finally:
        other.close()
    assert seated(elsewhere) == ["m1", "m3"]
    assert COOLING.fullmatch(elsewhere["skipped"][0]["why"])
    assert len(upstream.requests_for("m2")) == 1


def test_a_nominee_cooling_down_is_skipped_saying_why(bench: Gateway, upstream: FakeUpstream):
    bench.gateway_settings(seat_deadline_s=5)
    told_to_wait(bench, upstream, "core", 60)
    bench.save_collection("solo", ["m1"])
    bench.gateway_settings(max_calls=2, max_explorers=1)
    nominated = panel(bench, "solo", **{"with": ["m2"]})
    (skip,) = nominated["skipped"]
    assert (skip["seat"], skip["alias"]) == ("with", "m2") and COOLING.fullmatch(skip["why"])
    assert "m2" not in seated(nominated)
    assert len(upstream.requests_for("m2")) == 1


def test_members_cooling_down_still_sit_when_nobody_else_can(bench: Gateway, upstream: FakeUpstream):
    bench.save_collection("solo", ["m2"])
    bench.gateway_settings(max_calls=1, max_explorers=0, seat_deadline_s=3)
    told_to_wait(bench, upstream, "solo", 60)
    again = panel(bench, "solo")
    assert seated(again) == ["m2"] and "skipped" not in again
    (seat,) = again["seats"]
    assert seat["status"] == "error" and seat["error"].startswith("capacity: not sent")
    assert len(upstream.requests_for("m2")) == 1, "pacing still holds the call it cannot fit"


def test_route_mode_asks_a_member_cooling_down_last(gateway: Gateway, upstream: FakeUpstream):
    agents = arrange_agents(gateway, upstream)
    upstream.behave("m1", status=429, retry_after=60, fail_times=1)
    first = agents.api("POST", "/v1/chat/completions", {"model": "bench/agents", "messages": FIRST})
    assert first["bench"]["alias"] == "m2" and first["bench"]["failed_over"][0]["alias"] == "m1"
    elsewhere = [{"role": "user", "content": "another conversation"}]
    second = agents.api("POST", "/v1/chat/completions", {"model": "bench/agents", "messages": elsewhere})
    assert second["bench"]["alias"] == "m2" and "failed_over" not in second["bench"]
    assert len(upstream.requests_for("m1")) == 1
