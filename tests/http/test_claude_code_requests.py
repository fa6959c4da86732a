"""What Claude Code sends is answered: its request shape, replayed over real HTTP.

Claude Code 2.1.197 probes the server with `HEAD /`, then sends
`POST /v1/messages?beta=true` with Anthropic's betas in a header, system
blocks with cache control, a system entry *inside* `messages` (its list of
agent types, under the mid-conversation-system beta), thinking, effort,
context management, metadata naming its session, and its tools on every
request. Every one of those requests was refused with a 400 before; the real
client is driven in `tests/agents`, this file pins each piece down.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.http.route_helpers import arrange_agents
from tests.support.anthropic_upstream import FakeAnthropic
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream

AGENT_TYPES = "Available agent types for the Agent tool:\n- Explore: read-only search agent"
BASH = {
    "name": "Bash",
    "description": "Runs a shell command",
    "input_schema": {
        "type": "object",
        "properties": {"command": {"type": "string"}, "description": {"type": "string"}},
        "required": ["command"],
    },
}
HEADERS = {
    "anthropic-version": "2023-06-01",
    "anthropic-beta": "claude-code-20250219,interleaved-thinking-2025-05-14,"
    "context-management-2025-06-27,mid-conversation-system-2026-04-07,effort-2025-11-24",
    "x-app": "cli",
    "authorization": "Bearer unused-locally",
}


def claude_code_body(model: str, session: str, prompt: str = "say hi", **extra: Any) -> dict[str, Any]:
    """A first turn as Claude Code writes it (fields it sends that steer only Anthropic's service too)."""
    user_id = {"device_id": "d" * 64, "account_uuid": "", "session_id": session}
    cached = {"type": "ephemeral"}
    return {
        "model": model,
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": prompt, "cache_control": cached}]},
            {"role": "system", "content": AGENT_TYPES},
        ],
        "system": [
            {"type": "text", "text": "You are Claude Code."},
            {"type": "text", "text": "Work in /tmp/work.", "cache_control": cached},
        ],
        "tools": [BASH],
        "metadata": {"user_id": json.dumps(user_id)},
        "max_tokens": 32000,
        "thinking": {"type": "adaptive"},
        "context_management": {"edits": [{"type": "clear_thinking_20251015", "keep": "all"}]},
        "output_config": {"effort": "medium"},
        "stream": True,
        **extra,
    }  # fmt: skip


def post(
    gateway: Gateway, body: dict[str, Any], path: str = "/v1/messages?beta=true", **headers: str
) -> httpx.Response:
    return httpx.post(f"{gateway.url}{path}", json=body, headers={**HEADERS, **headers}, timeout=60)


def stream_text(reply: httpx.Response) -> str:
    deltas = [
        json.loads(line[len("data: ") :])
        for line in reply.text.splitlines()
        if line.startswith("data: ") and "text_delta" in line
    ]
    return "".join(d["delta"]["text"] for d in deltas)


@pytest.fixture
def agents(gateway: Gateway, upstream: FakeUpstream) -> Gateway:
    return arrange_agents(gateway, upstream)


def test_head_on_the_root_answers_like_get(agents: Gateway):
    head = httpx.head(agents.url + "/")
    get = httpx.get(agents.url + "/")
    assert head.status_code == get.status_code == 200
    assert head.headers["content-type"] == get.headers["content-type"] and head.content == b""


def test_a_route_turn_relays_the_system_entry_in_place_to_a_chat_member(
    agents: Gateway, upstream: FakeUpstream
):
    reply = post(agents, claude_code_body("bench/agents:route", "s-1"))
    assert reply.status_code == 200, reply.text
    assert stream_text(reply) == "answer from m1"
    sent = upstream.requests_for("m1")[0].body
    assert [m["role"] for m in sent["messages"]] == ["system", "user", "system"]
    assert sent["messages"][0]["content"] == "You are Claude Code.\nWork in /tmp/work."
    assert sent["messages"][2]["content"] == AGENT_TYPES
    assert sent["tools"][0]["function"]["name"] == "Bash"


def test_a_panel_folds_the_system_entry_into_the_system_text(bench: Gateway, upstream: FakeUpstream):
    body = claude_code_body("bench/core", "s-1", stream=False)
    del body["tools"]
    reply = post(bench, body)
    assert reply.status_code == 200, reply.text
    assert {seat["alias"] for seat in reply.json()["bench"]["seats"]} == {"m1", "m2", "m3"}
    for alias in ("m1", "m2", "m3"):
        messages = upstream.requests_for(alias)[0].body["messages"]
        assert [m["role"] for m in messages] == ["system", "user"]
        assert messages[0]["content"] == f"You are Claude Code.\nWork in /tmp/work.\n\n{AGENT_TYPES}"


def test_count_tokens_takes_the_system_entry(agents: Gateway):
    body = claude_code_body("bench/agents", "s-1")
    for field in ("stream", "max_tokens", "metadata"):
        del body[field]
    reply = post(agents, body, "/v1/messages/count_tokens?beta=true")
    assert reply.status_code == 200, reply.text
    assert reply.json()["input_tokens"] > 0


def test_a_system_entry_that_is_not_text_is_refused_in_the_anthropic_shape(agents: Gateway):
    body = claude_code_body("bench/agents:route", "s-1")
    body["messages"][1] = {"role": "system", "content": [{"type": "image", "source": {}}]}
    reply = post(agents, body)
    assert reply.status_code == 400
    assert reply.json()["error"]["type"] == "invalid_request_error"
    assert "messages[1].content" in reply.json()["error"]["message"]


@pytest.fixture
def anthropic() -> Iterator[FakeAnthropic]:
    with FakeAnthropic() as server:
        yield server


def test_a_native_anthropic_member_gets_the_system_entry_as_a_reminder_in_its_user_turn(
    gateway: Gateway, anthropic: FakeAnthropic
):
    gateway.add_endpoint("claude", anthropic.url, api="anthropic")
    anthropic.serve("claude-x")
    gateway.add_model("c1", served_id="claude-x", endpoint="claude", tools=True)
    gateway.save_collection("agents", ["c1"], reply="route")
    reply = post(gateway, claude_code_body("bench/agents", "s-1"))
    assert reply.status_code == 200, reply.text
    assert stream_text(reply) == "answer from claude-x"
    sent = anthropic.requests_for("claude-x")[0].body
    assert sent["system"] == "You are Claude Code.\nWork in /tmp/work."
    assert [m["role"] for m in sent["messages"]] == ["user"]
    texts = [block["text"] for block in sent["messages"][0]["content"]]
    assert texts == ["say hi", f"<system-reminder>\n{AGENT_TYPES}\n</system-reminder>"]
