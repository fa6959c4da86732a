"""Shadow seats: other members answer a route turn in the background, recorded, never in the caller's way."""

from __future__ import annotations

import time
from typing import Any

import httpx

from tests.http.route_helpers import arrange_agents
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream

FIRST = [{"role": "user", "content": "plan the migration"}]


def ask(gateway: Gateway, content: str = "plan the migration") -> dict[str, Any]:
    body = {"model": "bench/agents", "messages": [{"role": "user", "content": content}]}
    reply = httpx.post(f"{gateway.url}/v1/chat/completions", json=body, timeout=60)
    assert reply.status_code == 200, reply.text
    return dict(reply.json())


def shadows_of(gateway: Gateway, conversation: str) -> list[dict[str, Any]]:
    turns = gateway.api("GET", f"/api/routes/{conversation}")["turns"]
    return [t for t in turns if t["purpose"] == "shadow"]


def wait_for(check: Any, seconds: float = 15.0) -> Any:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if found := check():
            return found
        time.sleep(0.05)
    raise AssertionError("not seen in time")


def test_a_shadow_answers_after_the_caller_has_its_reply_and_is_recorded(
    gateway: Gateway, upstream: FakeUpstream
):
    arrange_agents(gateway, upstream, shadows=1)
    upstream.behave("m2", answer="another plan", delay=3)
    reply = ask(gateway)
    conversation = reply["bench"]["conversation"]
    assert reply["choices"][0]["message"]["content"] == "answer from m1"
    wait_for(lambda: upstream.requests_for("m2"))
    assert shadows_of(gateway, conversation) == []  # the caller had its answer while the shadow still thought

    shadow = wait_for(lambda: shadows_of(gateway, conversation))[0]
    assert (shadow["alias"], shadow["status"], shadow["answer"]) == ("m2", "ok", "another plan")
    assert upstream.requests_for("m2")[0].body["messages"] == FIRST
    verdict = httpx.post(
        f"{gateway.url}/bench/verdict", json={"call": shadow["call"], "useful": False}, timeout=10
    )
    assert verdict.status_code == 200
    assert upstream.requests_for("m3") == []


def test_shadows_stop_at_the_daily_budget(gateway: Gateway, upstream: FakeUpstream):
    arrange_agents(gateway, upstream, shadows=2)
    gateway.gateway_settings(shadow_calls_per_day=3)
    first = ask(gateway, "one")["bench"]["conversation"]
    wait_for(lambda: len(shadows_of(gateway, first)) == 2)
    second = ask(gateway, "two")["bench"]["conversation"]
    wait_for(lambda: len(shadows_of(gateway, second)) == 1)
    third = ask(gateway, "three")["bench"]["conversation"]
    time.sleep(0.5)
    assert shadows_of(gateway, third) == []


def test_no_shadows_unless_the_collection_asks(gateway: Gateway, upstream: FakeUpstream):
    arrange_agents(gateway, upstream, shadows=0)
    conversation = ask(gateway)["bench"]["conversation"]
    time.sleep(0.5)
    assert shadows_of(gateway, conversation) == [] and upstream.requests_for("m2") == []
