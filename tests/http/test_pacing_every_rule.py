"""A call covered by several hand-set rules is counted under all of them or, when one has no room,
under none: a call one rule holds back spends nothing of another rule's window."""

from __future__ import annotations

import time
from typing import Any

from tests.http.helpers import ask, hello
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream


def limit(gateway: Gateway, most: int, served_id: str | None = None) -> None:
    rule: dict[str, Any] = {"endpoint": "up", "measure": "requests", "window": "minute", "most": most}
    gateway.api("POST", "/api/limits", {**rule, "served_id": served_id}, expect=201)


def seat(gateway: Gateway, collection: str) -> dict[str, Any]:
    (only,) = ask(gateway, hello(f"bench/{collection}")).json()["bench"]["seats"]
    return dict(only)


def test_a_call_one_rule_holds_back_leaves_the_connections_window_to_others(
    bench: Gateway, upstream: FakeUpstream
):
    bench.save_collection("first", ["m1"])
    bench.save_collection("second", ["m2"])
    bench.gateway_settings(max_calls=1, max_explorers=0, seat_deadline_s=3)
    limit(bench, 2)  # the whole connection: two requests a minute
    limit(bench, 1, "m1")  # m1 alone: one
    if time.time() % 60 > 50:  # the three calls must fall in one clock minute
        time.sleep(60.5 - time.time() % 60)
    assert seat(bench, "first")["status"] == "ok"
    held = seat(bench, "first")
    assert held["status"] == "error" and "limited to 1 requests a minute (m1)" in held["error"]
    assert seat(bench, "second")["status"] == "ok", "the held call took the connection's second request"
    assert [r.model for r in upstream.requests] == ["m1", "m2"]
    used = {rule["served_id"]: rule["used"] for rule in bench.api("GET", "/api/limits")["rules"]}
    assert used == {None: 2, "m1": 1}
