"""Route mode over OpenAI Responses, with the official `openai` SDK as the agent: a whole tool loop."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import openai
import pytest
from openai.types.responses import Response

from tests.http.helpers import sdk
from tests.http.route_helpers import (
    ASK,
    CITY,
    FIRST,
    OSLO,
    OSLO_AND_BERGEN,
    SYSTEM,
    WEATHER_FUNCTION,
    arrange_agents,
    assert_result_reached_the_member,
    rate_limit_every_member,
)
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream

WEATHER = {
    "type": "function",
    "name": "get_weather",
    "description": "the weather in a city",
    "parameters": CITY,
}
PATCH = {"type": "custom", "name": "apply_patch", "description": "apply a patch to the repository"}
A_PATCH = '*** Begin Patch\n*** Add File: hello.txt\n+hi "there"\n*** End Patch'


@pytest.fixture
def agents(gateway: Gateway, upstream: FakeUpstream) -> Gateway:
    return arrange_agents(gateway, upstream)


@pytest.fixture
def client(agents: Gateway) -> Iterator[openai.OpenAI]:
    with sdk(agents) as official:
        yield official


def ask(client: openai.OpenAI, items: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Response:
    return client.responses.create(model="bench/agents", instructions=SYSTEM, input=items, tools=tools)


def calls_in(response: Response) -> list[Any]:
    return [item for item in response.output if item.type in ("function_call", "custom_tool_call")]


def test_a_tool_call_comes_back_as_a_function_call_item(client: openai.OpenAI, upstream: FakeUpstream):
    upstream.behave("m1", tool_calls=OSLO, usage=(120, 8))
    response = ask(client, ASK, [WEATHER])
    [call] = calls_in(response)
    assert response.status == "completed"
    assert call.type == "function_call" and call.call_id and call.name == "get_weather"
    assert json.loads(call.arguments) == {"city": "Oslo"}
    assert response.usage is not None
    assert (response.usage.input_tokens, response.usage.output_tokens) == (120, 8)
    sent = upstream.requests_for("m1")[0].body
    assert sent["messages"] == FIRST
    assert sent["tools"] == [WEATHER_FUNCTION]


def test_a_function_call_output_reaches_the_member_and_the_answer_is_text(
    client: openai.OpenAI, upstream: FakeUpstream
):
    upstream.behave("m1", tool_calls=OSLO)
    first = ask(client, ASK, [WEATHER])
    [call] = calls_in(first)
    upstream.behave("m1", answer="sunny in Oslo")
    output = {"type": "function_call_output", "call_id": call.call_id, "output": "clear skies"}
    second = ask(client, [*ASK, call.model_dump(exclude_none=True), output], [WEATHER])
    assert second.output_text == "sunny in Oslo" and calls_in(second) == []
    assert [r.model for r in upstream.requests] == ["m1", "m1"]
    assert_result_reached_the_member(upstream, call.call_id, "clear skies", "get_weather", {"city": "Oslo"})


def test_a_custom_tool_reaches_the_member_as_a_function_of_one_string(
    client: openai.OpenAI, upstream: FakeUpstream
):
    ask(client, ASK, [PATCH])
    [tool] = upstream.requests_for("m1")[0].body["tools"]
    parameters = tool["function"]["parameters"]
    assert tool["type"] == "function" and tool["function"]["name"] == "apply_patch"
    assert tool["function"]["description"] == PATCH["description"]
    assert parameters["required"] == ["input"]
    assert list(parameters["properties"]) == ["input"]
    assert parameters["properties"]["input"]["type"] == "string"


def test_a_call_to_a_custom_tool_comes_back_as_a_custom_tool_call_with_its_input(
    client: openai.OpenAI, upstream: FakeUpstream
):
    upstream.behave("m1", tool_calls=[{"name": "apply_patch", "arguments": {"input": A_PATCH}}])
    response = ask(client, ASK, [PATCH])
    [call] = calls_in(response)
    assert call.type == "custom_tool_call" and call.call_id
    assert (call.name, call.input) == ("apply_patch", A_PATCH)


def test_a_custom_tool_call_output_reaches_the_member_as_a_tool_message(
    client: openai.OpenAI, upstream: FakeUpstream
):
    upstream.behave("m1", tool_calls=[{"name": "apply_patch", "arguments": {"input": A_PATCH}}])
    [call] = calls_in(ask(client, ASK, [PATCH]))
    upstream.behave("m1", answer="patched")
    output = {"type": "custom_tool_call_output", "call_id": call.call_id, "output": "Done!"}
    second = ask(client, [*ASK, call.model_dump(exclude_none=True), output], [PATCH])
    assert second.output_text == "patched"
    assert_result_reached_the_member(upstream, call.call_id, "Done!", "apply_patch", {"input": A_PATCH})


def test_a_streamed_function_call_arrives_in_argument_deltas_and_in_the_final_response(
    client: openai.OpenAI, upstream: FakeUpstream
):
    upstream.behave("m1", tool_calls=OSLO, argument_pieces=3)
    with client.responses.stream(
        model="bench/agents", instructions=SYSTEM, input=ASK, tools=[WEATHER]
    ) as stream:
        events = list(stream)
        final = stream.get_final_response()
    deltas = [e.delta for e in events if e.type == "response.function_call_arguments.delta"]
    [call] = calls_in(final)
    assert len(deltas) == 3  # one per piece the member sent
    assert json.loads("".join(deltas)) == {"city": "Oslo"}
    assert call.type == "function_call" and call.name == "get_weather" and call.call_id
    assert json.loads(call.arguments) == {"city": "Oslo"}
    assert final.status == "completed"


def test_a_streamed_tool_loop_ends_with_the_final_text(client: openai.OpenAI, upstream: FakeUpstream):
    upstream.behave("m1", tool_calls=OSLO, argument_pieces=3)
    with client.responses.stream(
        model="bench/agents", instructions=SYSTEM, input=ASK, tools=[WEATHER]
    ) as stream:
        [call] = calls_in(stream.get_final_response())
    upstream.behave("m1", answer="sunny in Oslo", chunks=3)
    output = {"type": "function_call_output", "call_id": call.call_id, "output": "clear skies"}
    with client.responses.stream(
        model="bench/agents",
        instructions=SYSTEM,
        input=[*ASK, call.model_dump(exclude_none=True), output],
        tools=[WEATHER],
    ) as stream:
        final = stream.get_final_response()
    assert final.output_text == "sunny in Oslo"
    tool = upstream.requests_for("m1")[1].body["messages"][-1]
    assert tool == {"role": "tool", "tool_call_id": call.call_id, "content": "clear skies"}


def test_a_streamed_custom_tool_call_arrives_in_input_deltas_and_whole_in_the_final_response(
    client: openai.OpenAI, upstream: FakeUpstream
):
    upstream.behave(
        "m1", tool_calls=[{"name": "apply_patch", "arguments": {"input": A_PATCH}}], argument_pieces=4
    )
    with client.responses.stream(
        model="bench/agents", instructions=SYSTEM, input=ASK, tools=[PATCH]
    ) as stream:
        events = list(stream)
        final = stream.get_final_response()
    deltas = [e.delta for e in events if e.type == "response.custom_tool_call_input.delta"]
    [call] = calls_in(final)
    assert len(deltas) > 1 and "".join(deltas) == A_PATCH
    assert call.type == "custom_tool_call" and (call.name, call.input) == ("apply_patch", A_PATCH)


def test_every_member_rate_limited_raises_the_sdks_rate_limit_error(
    client: openai.OpenAI, upstream: FakeUpstream
):
    rate_limit_every_member(upstream)
    with pytest.raises(openai.RateLimitError) as caught:
        ask(client, ASK, [WEATHER])
    assert caught.value.status_code == 429
    assert "`m1`" in caught.value.message and "`m3`" in caught.value.message


def test_streamed_text_and_two_function_calls_come_as_a_message_then_one_item_each(
    client: openai.OpenAI, upstream: FakeUpstream
):
    upstream.behave(
        "m1",
        answer="checking both",
        tool_calls=OSLO_AND_BERGEN,
        argument_pieces=3,
        usage=(40, 9),
    )
    with client.responses.stream(
        model="bench/agents", instructions=SYSTEM, input=ASK, tools=[WEATHER]
    ) as stream:
        final = stream.get_final_response()
    assert [item.type for item in final.output] == ["message", "function_call", "function_call"]
    assert final.output_text == "checking both"
    oslo, bergen = calls_in(final)
    assert [json.loads(c.arguments) for c in (oslo, bergen)] == [{"city": "Oslo"}, {"city": "Bergen"}]
    assert oslo.call_id != bergen.call_id and len({item.id for item in final.output}) == 3
    assert final.usage is not None and (final.usage.input_tokens, final.usage.output_tokens) == (40, 9)


def test_every_member_rate_limited_before_a_stream_began_raises_the_sdks_rate_limit_error(
    client: openai.OpenAI, upstream: FakeUpstream
):
    rate_limit_every_member(upstream)
    with (
        pytest.raises(openai.RateLimitError) as caught,
        client.responses.stream(
            model="bench/agents", instructions=SYSTEM, input=ASK, tools=[WEATHER]
        ) as stream,
    ):
        stream.get_final_response()
    assert caught.value.status_code == 429


def test_a_forced_tool_choice_reaches_the_member_in_chat_words(client: openai.OpenAI, upstream: FakeUpstream):
    upstream.behave("m1", tool_calls=OSLO)
    client.responses.create(
        model="bench/agents",
        input=ASK,
        tools=[WEATHER],
        tool_choice={"type": "function", "name": "get_weather"},
        parallel_tool_calls=False,
    )
    sent = upstream.requests_for("m1")[0].body
    assert sent["tool_choice"] == {"type": "function", "function": {"name": "get_weather"}}
    assert sent["parallel_tool_calls"] is False
