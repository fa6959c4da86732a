"""Route mode to members on native Anthropic Messages and Gemini endpoints: a whole tool loop each."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from tests.http.helpers import sdk
from tests.http.route_helpers import CITY, FIRST, OSLO, SYSTEM, WEATHER_FUNCTION
from tests.support.anthropic_upstream import FakeAnthropic
from tests.support.gateway import Gateway
from tests.support.gemini_upstream import FakeGemini
from tests.support.upstream import FakeUpstream


@pytest.fixture
def anthropic() -> Iterator[FakeAnthropic]:
    with FakeAnthropic() as server:
        yield server


@pytest.fixture
def gemini() -> Iterator[FakeGemini]:
    with FakeGemini() as server:
        yield server


def tool_loop(gateway: Gateway, upstream: FakeUpstream, served_id: str, stream: bool) -> tuple[str, str]:
    """Turn 1 gets the weather tool called, turn 2 sends its result back: (arguments, final text)."""
    upstream.behave(served_id, tool_calls=OSLO)
    client = sdk(gateway)
    if stream:
        chunks = list(
            client.chat.completions.create(
                model="bench/agents", messages=FIRST, tools=[WEATHER_FUNCTION], stream=True
            )
        )
        deltas = [d for c in chunks if c.choices for d in c.choices[0].delta.tool_calls or []]
        call_id, name = deltas[0].id, deltas[0].function.name
        arguments = "".join(d.function.arguments or "" for d in deltas)
    else:
        first = client.chat.completions.create(model="bench/agents", messages=FIRST, tools=[WEATHER_FUNCTION])
        call = first.choices[0].message.tool_calls[0]
        call_id, name, arguments = call.id, call.function.name, call.function.arguments
    assert name == "get_weather" and call_id
    upstream.behave(served_id, answer="sunny in Oslo")
    history = [
        *FIRST,
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}]},
        {"role": "tool", "tool_call_id": call_id, "content": "clear skies"},
    ]  # fmt: skip
    second = client.chat.completions.create(model="bench/agents", messages=history, tools=[WEATHER_FUNCTION])
    return arguments, second.choices[0].message.content or ""


@pytest.mark.parametrize("stream", [False, True])
def test_a_member_on_anthropic_messages_completes_a_tool_loop(
    gateway: Gateway, anthropic: FakeAnthropic, stream: bool
):
    gateway.add_endpoint("claude", anthropic.url, api="anthropic")
    anthropic.serve("claude-x")
    gateway.add_model("c1", served_id="claude-x", endpoint="claude", tools=True)
    gateway.save_collection("agents", ["c1"], reply="route")
    arguments, text = tool_loop(gateway, anthropic, "claude-x", stream)
    assert json.loads(arguments) == {"city": "Oslo"} and text == "sunny in Oslo"
    first, second = anthropic.requests_for("claude-x")
    assert first.body["system"] == SYSTEM
    assert first.body["tools"][0]["name"] == "get_weather"
    assert first.body["tools"][0]["input_schema"] == CITY
    results = second.body["messages"][-1]["content"]
    assert results[0]["type"] == "tool_result" and results[0]["content"] == "clear skies"
    uses = second.body["messages"][-2]["content"]
    assert uses[-1]["type"] == "tool_use" and uses[-1]["id"] == results[0]["tool_use_id"]
    assert uses[-1]["input"] == {"city": "Oslo"}


@pytest.mark.parametrize("stream", [False, True])
def test_a_member_on_gemini_completes_a_tool_loop(gateway: Gateway, gemini: FakeGemini, stream: bool):
    gateway.add_endpoint("google", gemini.url, api="gemini")
    gemini.serve("gemini-x")
    gateway.add_model("g1", served_id="gemini-x", endpoint="google", tools=True)
    gateway.save_collection("agents", ["g1"], reply="route")
    arguments, text = tool_loop(gateway, gemini, "gemini-x", stream)
    assert json.loads(arguments) == {"city": "Oslo"} and text == "sunny in Oslo"
    first, second = gemini.requests_for("gemini-x")
    assert first.body["systemInstruction"]["parts"][0]["text"] == SYSTEM
    assert first.body["tools"][0]["functionDeclarations"][0]["name"] == "get_weather"
    parts = second.body["contents"][-1]["parts"]
    assert parts[0]["functionResponse"]["name"] == "get_weather"
    assert parts[0]["functionResponse"]["response"] == {"result": "clear skies"}
