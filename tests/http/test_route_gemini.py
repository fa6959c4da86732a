"""Route mode over the Gemini API, with the official `google-genai` SDK as the agent: a whole tool loop."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from google import genai
from google.genai import errors, types

from tests.http.route_helpers import (
    CITY,
    FIRST,
    OSLO,
    OSLO_AND_BERGEN,
    QUESTION,
    SYSTEM,
    arrange_agents,
    rate_limit_every_member,
)
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream

WEATHER = types.FunctionDeclaration(
    name="get_weather",
    description="the weather in a city",
    parameters=types.Schema(
        type=types.Type.OBJECT, properties={"city": types.Schema(type=types.Type.STRING)}, required=["city"]
    ),
)
CONFIG = types.GenerateContentConfig(
    system_instruction=SYSTEM, tools=[types.Tool(function_declarations=[WEATHER])]
)
ASK = types.Content(role="user", parts=[types.Part(text=QUESTION)])


@pytest.fixture
def agents(gateway: Gateway, upstream: FakeUpstream) -> Gateway:
    return arrange_agents(gateway, upstream)


@pytest.fixture(params=["v1beta", None], ids=["v1beta", "default-v1"])
def client(agents: Gateway, request: pytest.FixtureRequest) -> Iterator[genai.Client]:
    """The official GenAI client pointed at the gateway, kept open for the whole test: on `/v1beta/`,
    and on the SDK's own default API version (`/v1/`)."""
    options = types.HttpOptions(
        base_url=agents.url, api_version=request.param, retry_options=types.HttpRetryOptions(attempts=1)
    )
    official = genai.Client(api_key="x", http_options=options)
    yield official
    official.close()


def answered(call: types.FunctionCall, result: dict[str, object]) -> list[types.Content]:
    """The conversation after the function ran: the model's call as given, then its response."""
    return [
        ASK,
        types.Content(role="model", parts=[types.Part(function_call=call)]),
        types.Content(
            role="user",
            parts=[
                types.Part(
                    function_response=types.FunctionResponse(id=call.id, name=call.name, response=result)
                )
            ],
        ),
    ]


def streamed_calls(client: genai.Client, contents: list[types.Content]) -> list[types.FunctionCall]:
    chunks = client.models.generate_content_stream(model="bench/agents", contents=contents, config=CONFIG)
    return [call for chunk in chunks for call in chunk.function_calls or []]


def test_a_tool_call_comes_back_as_a_function_call_with_the_members_usage(
    client: genai.Client, upstream: FakeUpstream
):
    upstream.behave("m1", tool_calls=OSLO, usage=(77, 6))
    reply = client.models.generate_content(model="bench/agents", contents=[ASK], config=CONFIG)
    [call] = reply.function_calls or []
    assert call.id and (call.name, call.args) == ("get_weather", {"city": "Oslo"})
    assert reply.usage_metadata is not None
    assert (reply.usage_metadata.prompt_token_count, reply.usage_metadata.total_token_count) == (77, 83)
    sent = upstream.requests_for("m1")[0].body
    assert sent["messages"] == FIRST
    [tool] = sent["tools"]
    assert tool["function"]["name"] == "get_weather"
    assert tool["function"]["parameters"] == CITY


def test_a_function_response_reaches_the_member_with_its_call_id_and_the_answer_is_text(
    client: genai.Client, upstream: FakeUpstream
):
    upstream.behave("m1", tool_calls=OSLO)
    first = client.models.generate_content(model="bench/agents", contents=[ASK], config=CONFIG)
    [call] = first.function_calls or []
    upstream.behave("m1", answer="sunny in Oslo")
    second = client.models.generate_content(
        model="bench/agents", contents=answered(call, {"sky": "clear"}), config=CONFIG
    )
    assert second.text == "sunny in Oslo" and not second.function_calls
    assert [r.model for r in upstream.requests] == ["m1", "m1"]
    assistant, tool = upstream.requests_for("m1")[1].body["messages"][-2:]
    sent_call = assistant["tool_calls"][0]
    assert sent_call["id"] == call.id and sent_call["function"]["name"] == "get_weather"
    assert json.loads(sent_call["function"]["arguments"]) == {"city": "Oslo"}
    assert tool["role"] == "tool" and tool["tool_call_id"] == call.id
    assert json.loads(tool["content"]) == {"sky": "clear"}


def test_a_streamed_tool_loop_relays_the_function_call_and_then_the_text(
    client: genai.Client, upstream: FakeUpstream
):
    upstream.behave("m1", tool_calls=OSLO, argument_pieces=3)
    [call] = streamed_calls(client, [ASK])
    assert call.id and (call.name, call.args) == ("get_weather", {"city": "Oslo"})
    upstream.behave("m1", answer="sunny in Oslo", chunks=3)
    chunks = list(
        client.models.generate_content_stream(
            model="bench/agents", contents=answered(call, {"sky": "clear"}), config=CONFIG
        )
    )
    assert "".join(chunk.text or "" for chunk in chunks) == "sunny in Oslo"
    last = chunks[-1]
    assert last.candidates and last.candidates[0].finish_reason == types.FinishReason.STOP
    assistant, tool = upstream.requests_for("m1")[1].body["messages"][-2:]
    assert assistant["tool_calls"][0]["id"] == call.id and tool["tool_call_id"] == call.id
    assert upstream.requests_for("m1")[0].body["stream"] is True


def test_every_member_rate_limited_raises_a_429_client_error(client: genai.Client, upstream: FakeUpstream):
    rate_limit_every_member(upstream)
    with pytest.raises(errors.ClientError) as caught:
        client.models.generate_content(model="bench/agents", contents=[ASK], config=CONFIG)
    assert caught.value.code == 429 and caught.value.status == "RESOURCE_EXHAUSTED"
    assert "`m1`" in str(caught.value.message) and "`m3`" in str(caught.value.message)


def test_streamed_text_and_two_function_calls_arrive_each_call_whole(
    client: genai.Client, upstream: FakeUpstream
):
    upstream.behave("m1", answer="checking both", tool_calls=OSLO_AND_BERGEN, argument_pieces=3)
    chunks = list(client.models.generate_content_stream(model="bench/agents", contents=[ASK], config=CONFIG))
    calls = [call for chunk in chunks for call in chunk.function_calls or []]
    assert "".join(chunk.text or "" for chunk in chunks if not chunk.function_calls) == "checking both"
    assert [call.args for call in calls] == [{"city": "Oslo"}, {"city": "Bergen"}]
    assert calls[0].id != calls[1].id


def test_a_function_response_without_an_id_answers_the_call_of_its_name(
    client: genai.Client, upstream: FakeUpstream
):
    upstream.behave("m1", tool_calls=OSLO)
    first = client.models.generate_content(model="bench/agents", contents=[ASK], config=CONFIG)
    assert first.candidates and first.candidates[0].content
    upstream.behave("m1", answer="sunny in Oslo")
    response = types.Part.from_function_response(name="get_weather", response={"sky": "clear"})
    contents = [ASK, first.candidates[0].content, types.Content(role="user", parts=[response])]
    second = client.models.generate_content(model="bench/agents", contents=contents, config=CONFIG)
    assert second.text == "sunny in Oslo"
    assistant, tool = upstream.requests_for("m1")[1].body["messages"][-2:]
    assert tool["tool_call_id"] == assistant["tool_calls"][0]["id"]


def test_every_member_rate_limited_before_a_stream_began_raises_a_429_client_error(
    client: genai.Client, upstream: FakeUpstream
):
    rate_limit_every_member(upstream)
    with pytest.raises(errors.ClientError) as caught:
        streamed_calls(client, [ASK])
    assert caught.value.code == 429


def test_a_forced_function_reaches_the_member_as_its_tool_choice(
    client: genai.Client, upstream: FakeUpstream
):
    upstream.behave("m1", tool_calls=OSLO)
    forced = CONFIG.model_copy(
        update={
            "tool_config": types.ToolConfig(
                function_calling_config=types.FunctionCallingConfig(
                    mode=types.FunctionCallingConfigMode.ANY, allowed_function_names=["get_weather"]
                )
            )
        }
    )
    client.models.generate_content(model="bench/agents", contents=[ASK], config=forced)
    sent = upstream.requests_for("m1")[0].body
    assert sent["tool_choice"] == {"type": "function", "function": {"name": "get_weather"}}
