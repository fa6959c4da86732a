"""A route reply names the collection as `bench/<name>`, as a panel's `bench.collection` does, in every
API, whatever suffix picked route mode (`bench/agents:route`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

from tests.http.helpers import sse_events
from tests.http.route_helpers import FIRST, arrange_agents
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream

ASKED = "bench/agents:route"
HI = [{"role": "user", "content": "say hi"}]
ASKS: list[tuple[str, str, dict[str, Any], Callable[[dict[str, Any]], Any]]] = [
    ("chat", "/v1/chat/completions", {"model": ASKED, "messages": FIRST}, lambda r: r["model"]),
    ("completions", "/v1/completions", {"model": ASKED, "prompt": "say hi"}, lambda r: r["model"]),
    ("responses", "/v1/responses", {"model": ASKED, "input": "say hi"}, lambda r: r["model"]),
    (
        "anthropic",
        "/v1/messages",
        {"model": ASKED, "max_tokens": 100, "messages": HI},
        lambda r: r["model"],
    ),
    ("ollama", "/api/chat", {"model": ASKED, "messages": HI, "stream": False}, lambda r: r["model"]),
    (
        "gemini",
        f"/v1beta/models/{ASKED}:generateContent",
        {"contents": [{"role": "user", "parts": [{"text": "say hi"}]}]},
        lambda r: r["modelVersion"],
    ),
]


@pytest.fixture
def agents(gateway: Gateway, upstream: FakeUpstream) -> Gateway:
    return arrange_agents(gateway, upstream)


@pytest.mark.parametrize(("path", "body", "named"), [a[1:] for a in ASKS], ids=[a[0] for a in ASKS])
def test_a_whole_route_reply_names_the_collection(
    agents: Gateway, upstream: FakeUpstream, path: str, body: dict[str, Any], named: Callable[..., Any]
):
    reply = httpx.post(f"{agents.url}{path}", json=body, timeout=60)
    assert reply.status_code == 200, reply.text
    assert reply.headers["x-bench-model"] == "m1"
    assert named(reply.json()) == "bench/agents"


def test_every_streamed_chat_chunk_names_the_collection(agents: Gateway, upstream: FakeUpstream):
    upstream.behave("m1", answer="sunny in Oslo", chunks=3)
    body = {"model": ASKED, "messages": FIRST, "stream": True}
    events = sse_events(httpx.post(f"{agents.url}/v1/chat/completions", json=body, timeout=60).text)
    chunks = [e for e in events if isinstance(e, dict)]
    assert len(chunks) > 3 and {chunk["model"] for chunk in chunks} == {"bench/agents"}
    assert chunks[-1]["bench"]["collection"] == "bench/agents"
