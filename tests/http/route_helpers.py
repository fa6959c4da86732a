"""The bench and the checks route mode's agent tests share, whichever API the agent speaks.

Each agent test drives one SDK through a tool loop against a collection of
tool-capable members, then looks at what the member was sent: the turn always
reaches it as an OpenAI chat body, so what it should have received is the same
for every API.
"""

from __future__ import annotations

import json
from typing import Any

from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream

MEMBERS = ("m1", "m2", "m3")
SYSTEM = "you are an agent"
"""The agent's system prompt."""
QUESTION = "weather in Oslo?"
ASK: list[dict[str, Any]] = [{"role": "user", "content": QUESTION}]
"""The agent's question, for APIs that carry the system prompt apart from the messages."""
FIRST: list[dict[str, Any]] = [{"role": "system", "content": SYSTEM}, *ASK]
"""The agent's first turn as the member receives it, and as chat and Ollama agents send it."""
CITY = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
"""The weather tool's parameters, as every API's agent declares them."""
WEATHER_FUNCTION = {
    "type": "function",
    "function": {"name": "get_weather", "description": "the weather in a city", "parameters": CITY},
}
"""The weather tool as the member receives it."""
OSLO = [{"name": "get_weather", "arguments": {"city": "Oslo"}}]
"""The member's call, as the fake upstream is told to make it."""
OSLO_AND_BERGEN = [*OSLO, {"name": "get_weather", "arguments": {"city": "Bergen"}}]


def arrange_agents(gateway: Gateway, upstream: FakeUpstream, shadows: int = 0) -> Gateway:
    """Endpoint `up` on the loopback upstream, tool-capable members m1–m3, route collection `agents`.

    `shadows` is how many other members answer each turn again in the background (none unless asked).
    """
    upstream.serve(*MEMBERS)
    gateway.add_endpoint("up", upstream.url)
    for alias in MEMBERS:
        gateway.add_model(alias, tools=True)
    gateway.save_collection("agents", list(MEMBERS), reply="route", shadows=shadows)
    return gateway


def rate_limit_every_member(upstream: FakeUpstream) -> None:
    for alias in MEMBERS:
        upstream.behave(alias, status=429)


def assert_result_reached_the_member(
    upstream: FakeUpstream, call_id: str, content: str, name: str, arguments: dict[str, Any]
) -> None:
    """The member's second request ends with its own call (same id, name and arguments), then the result."""
    assistant, tool = upstream.requests_for("m1")[1].body["messages"][-2:]
    call = assistant["tool_calls"][0]
    assert assistant["role"] == "assistant" and call["id"] == call_id
    assert call["function"]["name"] == name
    assert json.loads(call["function"]["arguments"]) == arguments
    assert tool == {"role": "tool", "tool_call_id": call_id, "content": content}
