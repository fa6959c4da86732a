"""Route mode over Anthropic Messages, with the official `anthropic` SDK as the agent: a whole tool loop."""

from __future__ import annotations

import json
from typing import Any

import anthropic
import pytest

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
    "name": "get_weather",
    "description": "the weather in a city",
    "input_schema": CITY,
}


@pytest.fixture
def agents(gateway: Gateway, upstream: FakeUpstream) -> Gateway:
    return arrange_agents(gateway, upstream)


@pytest.fixture
def client(agents: Gateway) -> anthropic.Anthropic:
    return agents.keep(anthropic.Anthropic(base_url=agents.url, api_key="x", max_retries=0))


def ask(client: anthropic.Anthropic, messages: list[dict[str, Any]]) -> anthropic.types.Message:
    return client.messages.create(
        model="bench/agents", max_tokens=512, system=SYSTEM, messages=messages, tools=[WEATHER]
    )


def answered_with(first: anthropic.types.Message, result: dict[str, Any]) -> list[dict[str, Any]]:
    """The conversation after the tool ran: the assistant's turn as given, then its result."""
    return [
        *ASK,
        {"role": "assistant", "content": [block.model_dump(exclude_none=True) for block in first.content]},
        {"role": "user", "content": [result]},
    ]


def test_a_tool_call_comes_back_as_a_tool_use_block_with_the_members_usage(
    client: anthropic.Anthropic, upstream: FakeUpstream
):
    upstream.behave("m1", tool_calls=OSLO, usage=(321, 17))
    message = ask(client, ASK)
    uses = [block for block in message.content if block.type == "tool_use"]
    assert message.stop_reason == "tool_use"
    assert len(uses) == 1 and uses[0].id
    assert (uses[0].name, uses[0].input) == ("get_weather", {"city": "Oslo"})
    assert (message.usage.input_tokens, message.usage.output_tokens) == (321, 17)
    sent = upstream.requests_for("m1")[0].body
    assert sent["messages"] == FIRST
    assert sent["tools"] == [WEATHER_FUNCTION]


def test_a_tool_result_reaches_the_member_as_a_tool_message_and_the_answer_ends_the_turn(
    client: anthropic.Anthropic, upstream: FakeUpstream
):
    upstream.behave("m1", tool_calls=OSLO)
    first = ask(client, ASK)
    use = first.content[-1]
    upstream.behave("m1", answer="sunny in Oslo")
    result = {"type": "tool_result", "tool_use_id": use.id, "content": "clear skies"}
    second = ask(client, answered_with(first, result))
    assert [block.type for block in second.content] == ["text"]
    assert second.content[0].text == "sunny in Oslo" and second.stop_reason == "end_turn"
    assert [r.model for r in upstream.requests] == ["m1", "m1"]
    assert_result_reached_the_member(upstream, use.id, "clear skies", "get_weather", {"city": "Oslo"})


def test_a_failed_tool_result_reaches_the_member_marked_as_an_error(
    client: anthropic.Anthropic, upstream: FakeUpstream
):
    upstream.behave("m1", tool_calls=OSLO)
    first = ask(client, ASK)
    use = first.content[-1]
    upstream.behave("m1", answer="the weather service is down")
    failed = {"type": "tool_result", "tool_use_id": use.id, "content": "503 from the API", "is_error": True}
    second = ask(client, answered_with(first, failed))
    assert second.content[0].text == "the weather service is down" and second.stop_reason == "end_turn"
    tool = upstream.requests_for("m1")[1].body["messages"][-1]
    assert tool["role"] == "tool" and tool["tool_call_id"] == use.id
    assert tool["content"].startswith("Error") and "503 from the API" in tool["content"]


def test_a_streamed_tool_call_arrives_as_input_json_deltas_while_the_member_streams(
    client: anthropic.Anthropic, upstream: FakeUpstream
):
    upstream.behave("m1", tool_calls=OSLO, argument_pieces=3, usage=(40, 9))
    with client.messages.stream(
        model="bench/agents", max_tokens=512, system=SYSTEM, messages=ASK, tools=[WEATHER]
    ) as stream:
        events = list(stream)
        final = stream.get_final_message()
    partials = [
        e.delta.partial_json
        for e in events
        if e.type == "content_block_delta" and e.delta.type == "input_json_delta"
    ]
    use = final.content[-1]
    assert len(partials) == 3  # one per piece the member sent
    assert json.loads("".join(partials)) == {"city": "Oslo"}
    assert (use.type, use.name, use.input) == ("tool_use", "get_weather", {"city": "Oslo"})
    assert use.id and final.stop_reason == "tool_use"
    assert final.usage.output_tokens == 9
    assert upstream.requests_for("m1")[0].body["stream"] is True


def test_a_streamed_tool_loop_ends_with_the_final_text(client: anthropic.Anthropic, upstream: FakeUpstream):
    upstream.behave("m1", tool_calls=OSLO, argument_pieces=3)
    with client.messages.stream(
        model="bench/agents", max_tokens=512, system=SYSTEM, messages=ASK, tools=[WEATHER]
    ) as stream:
        first = stream.get_final_message()
    use = first.content[-1]
    upstream.behave("m1", answer="sunny in Oslo", chunks=3)
    result = {"type": "tool_result", "tool_use_id": use.id, "content": "clear skies"}
    with client.messages.stream(
        model="bench/agents",
        max_tokens=512,
        system=SYSTEM,
        messages=answered_with(first, result),
        tools=[WEATHER],
    ) as stream:
        second = stream.get_final_message()
    assert second.content[0].text == "sunny in Oslo" and second.stop_reason == "end_turn"
    tool = upstream.requests_for("m1")[1].body["messages"][-1]
    assert tool == {"role": "tool", "tool_call_id": use.id, "content": "clear skies"}


def test_every_member_rate_limited_raises_the_sdks_rate_limit_error(
    client: anthropic.Anthropic, upstream: FakeUpstream
):
    rate_limit_every_member(upstream)
    with pytest.raises(anthropic.RateLimitError) as caught:
        ask(client, ASK)
    assert caught.value.status_code == 429
    assert caught.value.body["error"]["type"] == "rate_limit_error"
    assert "`m1`" in caught.value.message and "`m3`" in caught.value.message


def test_streamed_text_and_two_tool_calls_come_as_a_text_block_then_one_tool_use_block_each(
    client: anthropic.Anthropic, upstream: FakeUpstream
):
    upstream.behave(
        "m1",
        answer="checking both",
        tool_calls=OSLO_AND_BERGEN,
        argument_pieces=3,
        usage=(40, 9),
    )
    with client.messages.stream(
        model="bench/agents", max_tokens=512, system=SYSTEM, messages=ASK, tools=[WEATHER]
    ) as stream:
        final = stream.get_final_message()
    assert [block.type for block in final.content] == ["text", "tool_use", "tool_use"]
    assert final.content[0].text == "checking both"
    assert [block.input for block in final.content[1:]] == [{"city": "Oslo"}, {"city": "Bergen"}]
    assert final.content[1].id != final.content[2].id
    assert (final.usage.input_tokens, final.usage.output_tokens) == (40, 9)


def test_tool_results_for_two_calls_reach_the_member_each_with_its_call_id(
    client: anthropic.Anthropic, upstream: FakeUpstream
):
    upstream.behave("m1", tool_calls=OSLO_AND_BERGEN)
    first = ask(client, ASK)
    oslo, bergen = first.content
    upstream.behave("m1", answer="sunny in both")
    history = [
        *ASK,
        {"role": "assistant", "content": [block.model_dump(exclude_none=True) for block in first.content]},
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": bergen.id,
                    "content": [{"type": "text", "text": "rain"}],
                },
                {"type": "tool_result", "tool_use_id": oslo.id, "content": "clear skies"},
            ],
        },
    ]
    ask(client, history)
    assistant, *results = upstream.requests_for("m1")[1].body["messages"][-3:]
    assert [call["id"] for call in assistant["tool_calls"]] == [oslo.id, bergen.id]
    assert sorted((r["tool_call_id"], r["content"]) for r in results) == sorted(
        [(bergen.id, "rain"), (oslo.id, "clear skies")]
    )


def test_every_member_rate_limited_before_a_stream_began_raises_the_sdks_rate_limit_error(
    client: anthropic.Anthropic, upstream: FakeUpstream
):
    rate_limit_every_member(upstream)
    with (
        pytest.raises(anthropic.RateLimitError) as caught,
        client.messages.stream(
            model="bench/agents", max_tokens=512, system=SYSTEM, messages=ASK, tools=[WEATHER]
        ) as stream,
    ):
        stream.get_final_message()
    assert caught.value.status_code == 429


def test_a_forced_tool_choice_reaches_the_member_in_chat_words(
    client: anthropic.Anthropic, upstream: FakeUpstream
):
    upstream.behave("m1", tool_calls=OSLO)
    client.messages.create(
        model="bench/agents",
        max_tokens=512,
        messages=ASK,
        tools=[WEATHER],
        tool_choice={"type": "tool", "name": "get_weather", "disable_parallel_tool_use": True},
    )
    sent = upstream.requests_for("m1")[0].body
    assert sent["tool_choice"] == {"type": "function", "function": {"name": "get_weather"}}
    assert sent["parallel_tool_calls"] is False
