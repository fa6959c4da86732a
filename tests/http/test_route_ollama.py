"""Route mode over the Ollama API, with the official `ollama` client as the agent: a whole tool loop."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import ollama
import pytest

from tests.http.route_helpers import (
    FIRST,
    MEMBERS,
    OSLO,
    OSLO_AND_BERGEN,
    WEATHER_FUNCTION,
    arrange_agents,
    rate_limit_every_member,
)
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream


@pytest.fixture
def agents(gateway: Gateway, upstream: FakeUpstream) -> Gateway:
    return arrange_agents(gateway, upstream)


@pytest.fixture
def client(agents: Gateway) -> Iterator[ollama.Client]:
    with ollama.Client(host=agents.url, timeout=30) as official:
        yield official


def answered(message: ollama.Message, result: str) -> list[Any]:
    """The conversation after the tool ran: the assistant's message as given, then the tool's answer."""
    return [*FIRST, message, {"role": "tool", "content": result, "tool_name": "get_weather"}]


def assert_the_member_got_the_result_for_its_call(upstream: FakeUpstream, result: str) -> None:
    assistant, tool = upstream.requests_for("m1")[1].body["messages"][-2:]
    [call] = assistant["tool_calls"]
    assert assistant["role"] == "assistant" and call["id"]
    assert call["function"]["name"] == "get_weather"
    assert json.loads(call["function"]["arguments"]) == {"city": "Oslo"}
    assert tool == {"role": "tool", "tool_call_id": call["id"], "content": result}


def test_a_tool_call_comes_back_in_the_message_with_arguments_as_an_object(
    client: ollama.Client, upstream: FakeUpstream
):
    upstream.behave("m1", tool_calls=OSLO, usage=(55, 4))
    reply = client.chat(model="bench/agents", messages=FIRST, tools=[WEATHER_FUNCTION], stream=False)
    [call] = reply.message.tool_calls or []
    assert (call.function.name, dict(call.function.arguments)) == ("get_weather", {"city": "Oslo"})
    assert reply.done and (reply.prompt_eval_count, reply.eval_count) == (55, 4)
    sent = upstream.requests_for("m1")[0].body
    assert sent["messages"] == FIRST and sent["tools"] == [WEATHER_FUNCTION]


def test_a_tool_message_reaches_the_member_answering_its_call_and_the_answer_is_text(
    client: ollama.Client, upstream: FakeUpstream
):
    upstream.behave("m1", tool_calls=OSLO)
    first = client.chat(model="bench/agents", messages=FIRST, tools=[WEATHER_FUNCTION], stream=False)
    upstream.behave("m1", answer="sunny in Oslo")
    second = client.chat(
        model="bench/agents",
        messages=answered(first.message, "clear skies"),
        tools=[WEATHER_FUNCTION],
        stream=False,
    )
    assert second.message.content == "sunny in Oslo" and not second.message.tool_calls
    assert second.done_reason == "stop"
    assert [r.model for r in upstream.requests] == ["m1", "m1"]
    assert_the_member_got_the_result_for_its_call(upstream, "clear skies")


def test_a_streamed_tool_loop_relays_the_whole_tool_call_and_then_the_text(
    client: ollama.Client, upstream: FakeUpstream
):
    upstream.behave("m1", tool_calls=OSLO, argument_pieces=3)
    parts = list(client.chat(model="bench/agents", messages=FIRST, tools=[WEATHER_FUNCTION], stream=True))
    calls = [call for part in parts for call in part.message.tool_calls or []]
    assert [(c.function.name, dict(c.function.arguments)) for c in calls] == [
        ("get_weather", {"city": "Oslo"})
    ]
    assert parts[-1].done
    assistant = ollama.Message(role="assistant", content="", tool_calls=calls)
    upstream.behave("m1", answer="sunny in Oslo", chunks=3)
    parts = list(
        client.chat(
            model="bench/agents",
            messages=answered(assistant, "clear skies"),
            tools=[WEATHER_FUNCTION],
            stream=True,
        )
    )
    assert "".join(part.message.content or "" for part in parts) == "sunny in Oslo"
    assert parts[-1].done and parts[-1].done_reason == "stop"
    assert upstream.requests_for("m1")[0].body["stream"] is True
    assert_the_member_got_the_result_for_its_call(upstream, "clear skies")


def test_every_member_rate_limited_raises_a_429_response_error(client: ollama.Client, upstream: FakeUpstream):
    rate_limit_every_member(upstream)
    with pytest.raises(ollama.ResponseError) as caught:
        client.chat(model="bench/agents", messages=FIRST, tools=[WEATHER_FUNCTION], stream=False)
    assert caught.value.status_code == 429
    assert "`m1`" in caught.value.error and "`m3`" in caught.value.error


def test_streamed_text_and_two_tool_calls_arrive_each_call_whole(
    client: ollama.Client, upstream: FakeUpstream
):
    upstream.behave("m1", answer="checking both", tool_calls=OSLO_AND_BERGEN, argument_pieces=3)
    parts = list(client.chat(model="bench/agents", messages=FIRST, tools=[WEATHER_FUNCTION], stream=True))
    calls = [call for part in parts for call in part.message.tool_calls or []]
    assert "".join(part.message.content or "" for part in parts) == "checking both"
    assert [dict(call.function.arguments) for call in calls] == [{"city": "Oslo"}, {"city": "Bergen"}]


def test_results_of_two_calls_to_one_tool_answer_them_in_order(client: ollama.Client, upstream: FakeUpstream):
    upstream.behave("m1", tool_calls=OSLO_AND_BERGEN)
    first = client.chat(model="bench/agents", messages=FIRST, tools=[WEATHER_FUNCTION], stream=False)
    upstream.behave("m1", answer="sunny and rainy")
    history = [
        *FIRST,
        first.message,
        {"role": "tool", "content": "clear skies", "tool_name": "get_weather"},
        {"role": "tool", "content": "rain", "tool_name": "get_weather"},
    ]
    client.chat(model="bench/agents", messages=history, tools=[WEATHER_FUNCTION], stream=False)
    assistant, oslo, bergen = upstream.requests_for("m1")[1].body["messages"][-3:]
    ids = [call["id"] for call in assistant["tool_calls"]]
    assert len(set(ids)) == 2
    assert [(oslo["tool_call_id"], oslo["content"]), (bergen["tool_call_id"], bergen["content"])] == [
        (ids[0], "clear skies"),
        (ids[1], "rain"),
    ]


def test_every_member_rate_limited_before_a_stream_began_raises_a_429_response_error(
    client: ollama.Client, upstream: FakeUpstream
):
    rate_limit_every_member(upstream)
    with pytest.raises(ollama.ResponseError) as caught:
        list(client.chat(model="bench/agents", messages=FIRST, tools=[WEATHER_FUNCTION], stream=True))
    assert caught.value.status_code == 429


def test_a_route_collection_named_with_the_latest_tag_answers_in_route_mode(
    client: ollama.Client, upstream: FakeUpstream
):
    upstream.behave("m1", tool_calls=OSLO)
    reply = client.chat(model="bench/agents:latest", messages=FIRST, tools=[WEATHER_FUNCTION], stream=False)
    [call] = reply.message.tool_calls or []
    assert call.function.name == "get_weather" and reply.model == "bench/agents"


@pytest.mark.parametrize("stream", [True, False])
def test_durations_are_the_turns_own_time_with_the_wait_for_the_first_piece_as_the_prompts(
    client: ollama.Client, upstream: FakeUpstream, stream: bool
):
    for alias in MEMBERS:
        upstream.behave(alias, delay=0.2, answer="Sunny all week.")
    if stream:
        *_, done = client.chat(model="bench/agents", messages=FIRST, stream=True)
    else:
        done = client.chat(model="bench/agents", messages=FIRST, stream=False)
    durations = (done.load_duration or 0, done.prompt_eval_duration or 0, done.eval_duration or 0)
    assert done.done and sum(durations) == done.total_duration and (done.total_duration or 0) >= 200_000_000
    assert min(durations[1:]) >= 1_000_000, "clients divide token counts by these"
    if stream:
        assert durations[1] >= 200_000_000, "the member's first piece came after its delay"
