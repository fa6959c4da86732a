"""A caller's own deadline: the reply goes out with slow seats `timeout`, recorded when they end."""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest

from tests.http.helpers import ask, hello, sse_events
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream


def _timed(gateway: Gateway, body: dict[str, Any], **headers: str) -> tuple[float, httpx.Response]:
    began = time.monotonic()
    reply = ask(gateway, body, **headers)
    return time.monotonic() - began, reply


def _statuses(seats: list[dict[str, Any]]) -> dict[str, str]:
    return {seat["alias"]: seat["status"] for seat in seats}


def _recorded_once_settled(gateway: Gateway, panel: str, within_s: float = 10.0) -> dict[str, Any]:
    """The panel's record once no seat is `timeout` any more."""
    give_up = time.monotonic() + within_s
    while True:
        recorded: dict[str, Any] = gateway.api("GET", f"/api/panels/{panel}", expect=200)
        if all(s["status"] != "timeout" for s in recorded["seats"]) or time.monotonic() > give_up:
            return recorded
        time.sleep(0.2)


def test_a_slow_seat_is_marked_timeout_when_the_callers_deadline_passes(
    bench: Gateway, upstream: FakeUpstream
):
    upstream.behave("m1", delay=3.0)
    took, reply = _timed(bench, hello(bench={"deadline_s": 1}))
    assert reply.status_code == 200, reply.text
    panel = reply.json()["bench"]
    content = reply.json()["choices"][0]["message"]["content"]
    assert took < 2.5
    assert _statuses(panel["seats"]) == {"m1": "timeout", "m2": "ok", "m3": "ok"}
    assert panel["deadline_s"] == 1
    late = next(s for s in panel["seats"] if s["alias"] == "m1")
    assert late["answer"] == "" and late["call"] in content and "answer from m2" in content


def test_a_seat_that_ends_after_the_reply_is_recorded_with_its_answer(bench: Gateway, upstream: FakeUpstream):
    upstream.behave("m1", delay=3.0)
    panel = ask(bench, hello(bench={"deadline_s": 1})).json()["bench"]
    at_once = bench.api("GET", f"/api/panels/{panel['panel']}", expect=200)
    assert _statuses(at_once["seats"]) == {"m1": "timeout", "m2": "ok", "m3": "ok"}
    settled = _recorded_once_settled(bench, panel["panel"])
    late = next(s for s in settled["seats"] if s["alias"] == "m1")
    assert late["status"] == "ok" and late["answer"] == "answer from m1" and late["seconds"] >= 2.5


def test_a_late_seat_is_judged_once_it_has_answered(bench: Gateway, upstream: FakeUpstream):
    upstream.behave("m1", delay=3.0)
    panel = ask(bench, hello(bench={"deadline_s": 1})).json()["bench"]
    late = next(s["call"] for s in panel["seats"] if s["alias"] == "m1")
    early = bench.api("POST", "/bench/verdict", {"call": late, "useful": True})
    assert "not answered by its panel's deadline" in str(early)
    _recorded_once_settled(bench, panel["panel"])
    assert bench.api("POST", "/bench/verdict", {"call": late, "useful": True}, expect=200)


def test_the_deadline_header_wins_when_it_is_the_smaller(bench: Gateway, upstream: FakeUpstream):
    upstream.behave("m1", delay=3.0)
    took, reply = _timed(bench, hello(bench={"deadline_s": 30}), **{"X-Bench-Deadline": "1"})
    panel = reply.json()["bench"]
    assert took < 2.5 and panel["deadline_s"] == 1
    assert _statuses(panel["seats"]) == {"m1": "timeout", "m2": "ok", "m3": "ok"}


def test_the_deadline_header_alone_sets_the_deadline(bench: Gateway, upstream: FakeUpstream):
    upstream.behave("m2", delay=3.0)
    took, reply = _timed(bench, hello(), **{"X-Bench-Deadline": "0.8"})
    assert took < 2.5
    assert _statuses(reply.json()["bench"]["seats"]) == {"m1": "ok", "m2": "timeout", "m3": "ok"}


def test_the_seat_deadline_caps_the_callers_deadline(bench: Gateway, upstream: FakeUpstream):
    bench.gateway_settings(seat_deadline_s=2)
    upstream.behave("m1", hang=True)
    took, reply = _timed(bench, hello(bench={"deadline_s": 100}))
    panel = reply.json()["bench"]
    assert took < 4.0 and panel["deadline_s"] == 2
    assert _statuses(panel["seats"]) == {"m1": "error", "m2": "ok", "m3": "ok"}


def test_a_streamed_reply_ends_at_the_deadline_with_the_slow_seat_timeout(
    bench: Gateway, upstream: FakeUpstream
):
    upstream.behave("m3", delay=3.0)
    took, reply = _timed(bench, hello(stream=True, bench={"deadline_s": 1}))
    events = [e for e in sse_events(reply.text) if isinstance(e, dict)]
    text = "".join(c["delta"].get("content") or "" for e in events for c in e.get("choices", []))
    panel = next(e["bench"] for e in events if "bench" in e)
    assert took < 2.5 and "timeout" in text
    assert _statuses(panel["seats"]) == {"m1": "ok", "m2": "ok", "m3": "timeout"}


def test_a_merged_reply_merges_the_seats_done_by_the_deadline(bench: Gateway, upstream: FakeUpstream):
    upstream.serve("merger-model")
    bench.add_model("mg", "merger-model")
    bench.api("PATCH", "/api/collections/core", {"merger": "mg"}, expect=200)
    upstream.behave("m1", delay=3.0)
    took, reply = _timed(bench, hello("bench/core:merged", bench={"deadline_s": 1}))
    panel = reply.json()["bench"]
    assert took < 3.0 and panel["reply"] == "merged" and panel["merger"]["status"] == "ok"
    asked = upstream.requests_for("merger-model")[0].body["messages"][-1]["content"]
    assert "answer from m2" in asked and "answer from m1" not in asked


@pytest.mark.parametrize("deadline", [0, -1, "soon", True])
def test_a_bad_body_deadline_is_refused_in_openai_shape(
    bench: Gateway, upstream: FakeUpstream, deadline: Any
):
    reply = ask(bench, hello(bench={"deadline_s": deadline}))
    assert reply.status_code == 400, reply.text
    error = reply.json()["error"]
    assert error["param"] == "bench.deadline_s" and "number of seconds above 0" in error["message"]
    assert upstream.requests_for("m1") == []


@pytest.mark.parametrize(
    ("body_field", "header"), [({"deadline_s": "30"}, None), (None, "soon"), (None, "0")]
)
def test_a_bad_deadline_is_refused_in_anthropic_shape(
    bench: Gateway, upstream: FakeUpstream, body_field: dict[str, Any] | None, header: str | None
):
    body: dict[str, Any] = {
        "model": "bench/core",
        "max_tokens": 64,
        "messages": [{"role": "user", "content": "hi"}],
    }
    if body_field is not None:
        body["bench"] = body_field
    headers = {"X-Bench-Deadline": header} if header is not None else {}
    reply = httpx.post(f"{bench.url}/v1/messages", json=body, headers=headers, timeout=30)
    assert reply.status_code == 400, reply.text
    shown = reply.json()
    assert shown["type"] == "error" and shown["error"]["type"] == "invalid_request_error"
    assert "number of seconds above 0" in shown["error"]["message"]
    assert upstream.requests_for("m1") == []
