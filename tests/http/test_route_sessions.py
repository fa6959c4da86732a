"""One agent session, one route conversation, when the client names its session.

Agents started twice with the same first prompt (`claude -p "say hi"`, run
twice) are two sessions; before, the conversation key (collection, caller,
system text, first user message) merged them into one. Each client names its
session its own way; a client that names none keeps the old key.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from tests.http.route_helpers import FIRST, arrange_agents
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream


@pytest.fixture
def agents(gateway: Gateway, upstream: FakeUpstream) -> Gateway:
    return arrange_agents(gateway, upstream)


def chat(gateway: Gateway, messages: list[dict[str, Any]], **headers: str) -> httpx.Response:
    body = {"model": "bench/agents", "messages": messages}
    reply = httpx.post(f"{gateway.url}/v1/chat/completions", json=body, headers=headers, timeout=30)
    assert reply.status_code == 200, reply.text
    return reply


def conversations(gateway: Gateway) -> list[dict[str, Any]]:
    return list(gateway.api("GET", "/api/routes?collection=agents")["conversations"])


def later_turn(answer: str, question: str) -> list[dict[str, Any]]:
    return [*FIRST, {"role": "assistant", "content": answer}, {"role": "user", "content": question}]


@pytest.mark.parametrize("header", ["X-Claude-Code-Session-Id", "session-id", "x-session-id"])
def test_two_sessions_with_the_same_first_prompt_are_two_conversations(agents: Gateway, header: str):
    first = chat(agents, FIRST, **{header: "session-a"})
    second = chat(agents, FIRST, **{header: "session-b"})
    assert first.headers["X-Bench-Conversation"] != second.headers["X-Bench-Conversation"]
    listed = conversations(agents)
    assert len(listed) == 2 and all(c["turns"] == 1 for c in listed)


def test_turns_of_one_session_stay_on_its_member_when_the_order_changes(
    agents: Gateway, upstream: FakeUpstream
):
    first = chat(agents, FIRST, **{"X-Claude-Code-Session-Id": "session-a"})
    assert first.headers["X-Bench-Model"] == "m1"
    upstream.behave("m1", status=500)
    other = chat(agents, [{"role": "user", "content": "unrelated"}])
    assert other.headers["X-Bench-Model"] == "m2"
    agents.api("POST", "/bench/verdict", {"call": other.json()["bench"]["call"], "useful": True})
    upstream.behave("m1")  # m1 answers again, but m2 now has the better record
    later = chat(agents, later_turn("hi", "and now?"), **{"X-Claude-Code-Session-Id": "session-a"})
    assert later.headers["X-Bench-Conversation"] == first.headers["X-Bench-Conversation"]
    assert later.headers["X-Bench-Model"] == "m1"
    turns = {c["id"]: c["turns"] for c in conversations(agents)}
    assert turns[first.headers["X-Bench-Conversation"]] == 2


def anthropic_turn(session: str) -> tuple[str, dict[str, Any]]:
    """Claude Code's way in the body: `metadata.user_id` is JSON naming the session."""
    user_id = json.dumps({"device_id": "d", "session_id": session})
    messages = [{"role": "user", "content": "say hi"}]
    return "/v1/messages", {"max_tokens": 100, "messages": messages, "metadata": {"user_id": user_id}}


def responses_turn(session: str) -> tuple[str, dict[str, Any]]:
    """Codex's way in the body: the Responses `prompt_cache_key`."""
    return "/v1/responses", {"input": "say hi", "prompt_cache_key": session}


@pytest.mark.parametrize("turn", [anthropic_turn, responses_turn], ids=["anthropic-metadata", "responses"])
def test_a_session_named_in_the_body_keys_the_conversation(
    agents: Gateway, turn: Callable[[str], tuple[str, dict[str, Any]]]
):
    def conversation_of(session: str) -> str:
        path, body = turn(session)
        reply = httpx.post(f"{agents.url}{path}", json={"model": "bench/agents", **body}, timeout=30)
        assert reply.status_code == 200, reply.text
        return str(reply.headers["X-Bench-Conversation"])

    assert conversation_of("one") != conversation_of("two")
    assert conversation_of("one") == conversation_of("one")


def test_without_a_session_the_same_opening_is_one_conversation(agents: Gateway):
    first = chat(agents, FIRST)
    again = chat(agents, later_turn("hi", "more"))
    assert first.headers["X-Bench-Conversation"] == again.headers["X-Bench-Conversation"]
    assert [c["turns"] for c in conversations(agents)] == [2]


def test_the_newest_conversations_are_listed_first(agents: Gateway):
    ids = [chat(agents, FIRST, **{"x-session-id": f"s{n}"}).headers["X-Bench-Conversation"] for n in range(3)]
    listed = agents.api("GET", "/api/routes?limit=2")["conversations"]
    assert [c["id"] for c in listed] == ids[:0:-1]
    assert listed[0]["alias"] == "m1" and listed[0]["collection"] == "agents"


async def test_first_turns_of_one_session_sent_at_once_join_one_conversation_on_one_member(
    agents: Gateway, upstream: FakeUpstream
):
    upstream.behave("m1", delay=0.2)  # every turn is still waiting when the last one starts
    async with httpx.AsyncClient(timeout=30) as client:
        body = {"model": "bench/agents", "messages": FIRST}
        replies = await asyncio.gather(
            *(
                client.post(f"{agents.url}/v1/chat/completions", json=body, headers={"x-session-id": "ses_1"})
                for _ in range(6)
            )
        )
    assert all(reply.status_code == 200 for reply in replies)
    assert len({reply.headers["X-Bench-Conversation"] for reply in replies}) == 1
    assert len({reply.headers["X-Bench-Model"] for reply in replies}) == 1
    assert len(conversations(agents)) == 1
