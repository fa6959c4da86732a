"""Model swaps and empty answers cut at the token limit, read from native Anthropic Messages and Gemini
endpoints: the message's `model` and `modelVersion`, and their own words for the limit."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.http.helpers import ask, hello
from tests.support.anthropic_upstream import FakeAnthropic
from tests.support.gateway import Gateway
from tests.support.gemini_upstream import FakeGemini


@pytest.fixture
def anthropic() -> Iterator[FakeAnthropic]:
    with FakeAnthropic() as server:
        yield server


@pytest.fixture
def gemini() -> Iterator[FakeGemini]:
    with FakeGemini() as server:
        yield server


@pytest.fixture
def natives(gateway: Gateway, anthropic: FakeAnthropic, gemini: FakeGemini) -> Gateway:
    """Collection `natives`: c1 on Anthropic Messages, g1 on Gemini; no explorers."""
    gateway.add_endpoint("claude", anthropic.url, api="anthropic")
    gateway.add_endpoint("google", gemini.url, api="gemini")
    anthropic.serve("claude-x")
    gemini.serve("gemini-x")
    gateway.add_model("c1", served_id="claude-x", endpoint="claude")
    gateway.add_model("g1", served_id="gemini-x", endpoint="google")
    gateway.gateway_settings(max_calls=2, max_explorers=0, seat_deadline_s=5)
    gateway.save_collection("natives", ["c1", "g1"])
    return gateway


def seats_of(gateway: Gateway, **extra: Any) -> dict[str, dict[str, Any]]:
    reply = ask(gateway, hello("bench/natives", **extra))
    assert reply.status_code == 200, reply.text
    return {seat["alias"]: seat for seat in reply.json()["bench"]["seats"]}


def test_a_native_reply_naming_another_model_is_a_swap_and_a_version_of_it_is_not(
    natives: Gateway, anthropic: FakeAnthropic, gemini: FakeGemini
) -> None:
    anthropic.behave("claude-x", served_as="claude-y-haiku-20240307")
    gemini.behave("gemini-x", served_as="gemini-x-002")
    seats = seats_of(natives)
    assert seats["c1"]["served_as"] == "claude-y-haiku-20240307"
    assert seats["g1"]["status"] == "ok" and "served_as" not in seats["g1"]


def test_a_native_empty_answer_at_its_token_limit_is_asked_again_with_twice_the_budget(
    natives: Gateway, anthropic: FakeAnthropic, gemini: FakeGemini
) -> None:
    anthropic.behave("claude-x", empty=True, finish_reason="max_tokens")
    gemini.behave("gemini-x", empty=True, finish_reason="MAX_TOKENS")
    seats = seats_of(natives, max_tokens=250)
    assert {alias: (s["status"], s["attempts"]) for alias, s in seats.items()} == {
        "c1": ("empty", 2),
        "g1": ("empty", 2),
    }
    assert [r.body["max_tokens"] for r in anthropic.requests_for("claude-x")] == [250, 500]
    sent = [r.body["generationConfig"]["maxOutputTokens"] for r in gemini.requests_for("gemini-x")]
    assert sent == [250, 500]
