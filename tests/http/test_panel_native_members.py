"""Panels with members on native Anthropic Messages and Gemini endpoints, beside an OpenAI chat member.

Every seat is asked in its endpoint's own API, streamed or not, merged or not; its tokens reach the
usage ledger, its rate limits reach pacing, and its failures read like any other seat's.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.http.helpers import ask, sse_events
from tests.support.anthropic_upstream import FakeAnthropic
from tests.support.gateway import Gateway
from tests.support.gemini_upstream import FakeGemini
from tests.support.native_fakes import NativeFake
from tests.support.upstream import FakeUpstream

SYSTEM = "You review code briefly."
QUESTION = "Is `x = x + 1` idempotent?"
ASKED = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": QUESTION}]
SERVED = {"m1": "m1", "c1": "claude-x", "g1": "gemini-x"}
ENDPOINTS = {"c1": "claude", "g1": "google"}
MERGED = "all three agree: it is not idempotent"


@pytest.fixture
def anthropic() -> Iterator[FakeAnthropic]:
    with FakeAnthropic() as server:
        yield server


@pytest.fixture
def gemini() -> Iterator[FakeGemini]:
    with FakeGemini() as server:
        yield server


@pytest.fixture
def trio(gateway: Gateway, upstream: FakeUpstream, anthropic: FakeAnthropic, gemini: FakeGemini) -> Gateway:
    """Collection `trio`: m1 on OpenAI chat, c1 on Anthropic Messages, g1 on Gemini; no explorers."""
    gateway.add_endpoint("up", upstream.url)
    gateway.add_endpoint("claude", anthropic.url, api="anthropic")
    gateway.add_endpoint("google", gemini.url, api="gemini")
    upstream.serve("m1")
    anthropic.serve("claude-x")
    gemini.serve("gemini-x")
    gateway.add_model("m1")
    gateway.add_model("c1", served_id="claude-x", endpoint="claude")
    gateway.add_model("g1", served_id="gemini-x", endpoint="google")
    gateway.gateway_settings(max_calls=3, max_explorers=0, seat_deadline_s=5)
    gateway.save_collection("trio", ["m1", "c1", "g1"])
    return gateway


def panel_of(gateway: Gateway, model: str = "bench/trio", **extra: Any) -> dict[str, Any]:
    reply = ask(gateway, {"model": model, "messages": ASKED, **extra})
    assert reply.status_code == 200, reply.text
    return reply.json()


def seats_by_alias(bench: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {seat["alias"]: seat for seat in bench["seats"]}


def test_a_panel_answers_with_a_seat_on_each_api(
    trio: Gateway, upstream: FakeUpstream, anthropic: FakeAnthropic, gemini: FakeGemini
):
    body = panel_of(trio)
    seats = seats_by_alias(body["bench"])
    assert {alias: (seat["status"], seat["answer"]) for alias, seat in seats.items()} == {
        alias: ("ok", f"answer from {served}") for alias, served in SERVED.items()
    }
    content = body["choices"][0]["message"]["content"]
    assert all(f"answer from {served}" in content for served in SERVED.values())
    (chat,) = upstream.requests_for("m1")
    assert chat.body["messages"] == ASKED
    (claude,) = anthropic.requests_for("claude-x")
    assert claude.path == "/v1/messages" and claude.headers["anthropic-version"] == "2023-06-01"
    assert claude.body["system"] == SYSTEM and claude.body["max_tokens"] == 4096
    assert claude.body["messages"] == [{"role": "user", "content": [{"type": "text", "text": QUESTION}]}]
    (google,) = gemini.requests_for("gemini-x")
    assert google.path == "/v1/models/gemini-x:streamGenerateContent"
    assert google.body["systemInstruction"] == {"parts": [{"text": SYSTEM}]}
    assert google.body["contents"] == [{"role": "user", "parts": [{"text": QUESTION}]}]


def test_a_streamed_panel_shows_each_native_seat_as_it_finishes(
    trio: Gateway, anthropic: FakeAnthropic, gemini: FakeGemini
):
    anthropic.behave("claude-x", answer="claude says no, it adds one", chunks=4)
    gemini.behave("gemini-x", answer="gemini says no, not idempotent", chunks=3, delay=0.3)
    events = sse_events(ask(trio, {"model": "bench/trio", "messages": ASKED, "stream": True}).text)
    assert events[-1] == "[DONE]"
    chunks = [e for e in events if isinstance(e, dict)]
    streamed = "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks if c["choices"])
    claude_at = streamed.index("claude says no, it adds one")
    assert claude_at < streamed.index("gemini says no, not idempotent"), "the slower seat came first"
    bench = chunks[-1]["bench"]
    assert {alias: seat["status"] for alias, seat in seats_by_alias(bench).items()} == dict.fromkeys(
        SERVED, "ok"
    )


def test_native_seats_put_their_tokens_in_the_usage_ledger(
    trio: Gateway, upstream: FakeUpstream, anthropic: FakeAnthropic, gemini: FakeGemini
):
    upstream.behave("m1", usage=(11, 3))
    anthropic.behave("claude-x", usage=(120, 30))
    gemini.behave("gemini-x", usage=(140, 20), reasoning="thinking it over")
    body = panel_of(trio)
    calls = {seat["alias"]: seat["call"] for seat in body["bench"]["seats"]}
    rows = {row["alias"]: row for row in trio.api("GET", "/api/usage")["recent"]}
    counted = {
        alias: (row["call"], row["purpose"], row["status"], row["endpoint"], row["served_id"],
                row["tokens_in"], row["tokens_out"], row["tokens_reasoning"])
        for alias, row in rows.items()
    }  # fmt: skip
    assert counted == {
        "m1": (calls["m1"], "panel", "ok", "up", "m1", 11, 3, None),
        "c1": (calls["c1"], "panel", "ok", "claude", "claude-x", 120, 30, None),
        "g1": (calls["g1"], "panel", "ok", "google", "gemini-x", 140, 20 + 3, 3),
    }


def test_a_native_seats_tokens_count_against_a_token_rule(trio: Gateway, anthropic: FakeAnthropic):
    anthropic.behave("claude-x", usage=(120, 30))
    rule = {"endpoint": "claude", "measure": "tokens", "window": "day", "most": 100}
    trio.api("POST", "/api/limits", rule, expect=201)
    assert seats_by_alias(panel_of(trio)["bench"])["c1"]["status"] == "ok"
    (counted,) = trio.api("GET", "/api/limits")["rules"]
    assert counted["used"] == 150
    refused = seats_by_alias(panel_of(trio)["bench"])["c1"]
    assert refused["status"] == "error" and refused["error"].startswith("capacity: not sent")
    assert len(anthropic.requests_for("claude-x")) == 1


@pytest.mark.parametrize(
    ("fake", "alias", "served_id"), [("anthropic", "c1", "claude-x"), ("gemini", "g1", "gemini-x")]
)
def test_a_429_from_a_native_member_is_a_rate_limited_seat_whose_wait_is_learned(
    trio: Gateway, request: pytest.FixtureRequest, fake: str, alias: str, served_id: str
):
    native: NativeFake = request.getfixturevalue(fake)
    native.behave(served_id, status=429, retry_after=40)
    seat = seats_by_alias(panel_of(trio)["bench"])[alias]
    assert seat["status"] == "error" and seat["error"].startswith("capacity: ")
    assert "HTTP 429" in seat["error"]
    assert len(native.requests_for(served_id)) == 1, "a wait past the deadline was not worth a retry"
    (stated,) = [row for row in trio.api("GET", "/api/limits")["stated"] if row["served_id"] == served_id]
    assert stated["endpoint"] == ENDPOINTS[alias] and stated["retry_at"] is not None
    (row,) = [row for row in trio.api("GET", "/api/usage")["recent"] if row["alias"] == alias]
    assert (row["status"], row["error_kind"], row["attempts"]) == ("error", "capacity", 1)
    again = panel_of(trio)["bench"]
    assert alias not in seats_by_alias(again) and [s["alias"] for s in again["skipped"]] == [alias]
    assert len(native.requests_for(served_id)) == 1, "the member was asked again while cooling down"


def test_an_error_event_inside_a_native_stream_is_that_seats_error(trio: Gateway, anthropic: FakeAnthropic):
    anthropic.behave("claude-x", answer="half an answer", chunks=2, error_after=1)
    seats = seats_by_alias(panel_of(trio)["bench"])
    assert seats["c1"]["status"] == "error" and seats["c1"]["error"].startswith("capacity: ")
    assert "overloaded_error" in seats["c1"]["error"]
    assert seats["m1"]["status"] == seats["g1"]["status"] == "ok"


@pytest.mark.parametrize(("merger", "served_id"), [("c1", "claude-x"), ("g1", "gemini-x")])
@pytest.mark.parametrize("stream", [False, True])
def test_a_native_merger_writes_the_merged_answer(
    trio: Gateway, request: pytest.FixtureRequest, merger: str, served_id: str, stream: bool
):
    native: NativeFake = request.getfixturevalue("anthropic" if merger == "c1" else "gemini")
    trio.api("PATCH", "/api/collections/trio", {"merger": merger}, expect=200)
    native.behave(served_id, answer=MERGED, chunks=4)
    if stream:
        raw = ask(trio, {"model": "bench/trio:merged", "messages": ASKED, "stream": True}).text
        chunks = [e for e in sse_events(raw) if isinstance(e, dict)]
        content = "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks if c["choices"])
        texts = [c["choices"][0]["delta"].get("content") for c in chunks if c["choices"]]
        pieces = [text for text in texts if text and text in MERGED]
        assert len(pieces) == 4, "the merge did not stream piece by piece"
        bench = chunks[-1]["bench"]
    else:
        body = panel_of(trio, "bench/trio:merged")
        content, bench = body["choices"][0]["message"]["content"], body["bench"]
    assert bench["reply"] == "merged" and bench["merger"]["alias"] == merger
    assert bench["merger"]["status"] == "ok"
    assert content.startswith(MERGED)
    seat_call, merge_call = native.requests_for(served_id)
    assert "answer from m1" not in texts_in(seat_call.body)
    merge_text = texts_in(merge_call.body)
    assert QUESTION in merge_text
    assert all(f"answer from {other}" in merge_text for alias, other in SERVED.items() if alias != merger)
    purposes = sorted(
        row["purpose"] for row in trio.api("GET", "/api/usage")["recent"] if row["alias"] == merger
    )
    assert purposes == ["merge", "panel"]


def texts_in(body: dict[str, Any]) -> str:
    """Every text a native request carries, joined (the merge prompt lives in its user turn)."""
    texts: list[str] = []

    def walk(value: object) -> None:
        if isinstance(value, dict):
            for key, inner in value.items():
                if key == "text" and isinstance(inner, str):
                    texts.append(inner)
                else:
                    walk(inner)
        elif isinstance(value, list):
            for inner in value:
                walk(inner)

    walk(body)
    return "\n".join(texts)
