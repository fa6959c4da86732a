"""Anthropic Messages route mode on its own: the OpenAI body a request becomes, the replies a turn makes."""

from __future__ import annotations

from typing import Any

import anthropic
import orjson
import pytest

from panelgate.core.errors import BadRequest
from panelgate.core.route import RouteBroken, RouteEvent, RouteRequest
from panelgate.core.turn import ReasoningPiece, TextPiece, ToolCallArguments, ToolCallStarted
from panelgate.core.types import Heartbeat
from panelgate.formats.anthropic.panel import AnthropicMessages
from panelgate.formats.anthropic.route import AnthropicRoute
from panelgate.formats.route_blocks import BlockClosed, BlockDelta, BlockOpened, TurnBlocks
from tests.formats.route_helpers import (
    BENCH,
    arguments_chunk,
    call_chunk,
    feed,
    finish_chunk,
    named_events,
    sse_http_client,
    text_chunk,
    thought_chunk,
    turn,
)

ROUTE = AnthropicRoute()
WEATHER = {
    "name": "weather",
    "description": "Weather in a city",
    "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    "cache_control": {"type": "ephemeral"},
}
PIXEL = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBO"}}


def _decode(**body: Any) -> RouteRequest:
    return ROUTE.decode_route(
        {
            "model": "bench/core:route",
            "max_tokens": 100,
            "messages": [{"role": "user", "content": "hi"}],
            **body,
        },
        caller="local",
    )


# ---- streams and what reads them ------------------------------------------------------


async def _streamed(events: list[RouteEvent], request: RouteRequest | None = None) -> bytes:
    asked = request or _decode(stream=True)
    return b"".join([chunk async for chunk in ROUTE.stream_route(asked, feed(events))])


def _check_blocks(events: list[tuple[str, dict[str, Any]]]) -> dict[int, dict[str, Any]]:
    """Blocks open one at a time with indices 0, 1, ..., deltas go to the open one, every block closes;
    returns each block with its text or its joined JSON."""
    blocks: dict[int, dict[str, Any]] = {}
    open_index: int | None = None
    for name, data in events:
        if name == "content_block_start":
            assert open_index is None and data["index"] == len(blocks)
            open_index = data["index"]
            blocks[open_index] = {**data["content_block"], "json": ""}
        elif name == "content_block_delta":
            assert data["index"] == open_index
            delta = data["delta"]
            if delta["type"] == "text_delta":
                blocks[open_index]["text"] += delta["text"]
            else:
                blocks[open_index]["json"] += delta["partial_json"]
        elif name == "content_block_stop":
            assert data["index"] == open_index
            open_index = None
    assert open_index is None
    return blocks


def _client_reading(raw: bytes) -> anthropic.Anthropic:
    return anthropic.Anthropic(
        base_url="http://gateway.invalid", api_key="x", max_retries=0, http_client=sse_http_client(raw)
    )


# ---- reading a request ----------------------------------------------------------------


def test_a_system_entry_inside_messages_stays_in_place_for_the_member():
    asked = ROUTE.decode_route(
        {
            "model": "bench/core:route",
            "max_tokens": 1024,
            "system": "you are an agent",
            "messages": [{"role": "user", "content": "hi"}, {"role": "system", "content": "agent types"}],
        },
        caller="local",
    )
    assert asked.body["messages"] == [
        {"role": "system", "content": "you are an agent"},
        {"role": "user", "content": "hi"},
        {"role": "system", "content": "agent types"},
    ]


def test_a_whole_tool_loop_becomes_one_openai_body():
    asked = ROUTE.decode_route(
        {
            "model": "bench/core:route",
            "max_tokens": 1024,
            "system": [{"type": "text", "text": "you are an agent", "cache_control": {"type": "ephemeral"}}],
            "messages": [
                {"role": "user", "content": "weather in Oslo and Rome?"},
                {
                    "role": "assistant",
                    "content": [
                        {"type": "thinking", "thinking": "two calls", "signature": "sig"},
                        {"type": "text", "text": "checking"},
                        {"type": "tool_use", "id": "toolu_1", "name": "weather", "input": {"city": "Oslo"}},
                        {"type": "tool_use", "id": "toolu_2", "name": "weather", "input": {"city": "Rome"}},
                    ],
                },
                {
                    "role": "user",
                    "content": [
                        {"type": "tool_result", "tool_use_id": "toolu_1", "content": "3C"},
                        {
                            "type": "tool_result",
                            "tool_use_id": "toolu_2",
                            "content": [{"type": "text", "text": "18C"}],
                        },
                    ],
                },
                {"role": "assistant", "content": "Oslo 3C, Rome 18C."},
                {"role": "user", "content": "thanks"},
            ],
            "tools": [WEATHER],
            "tool_choice": {"type": "auto"},
            "metadata": {"user_id": "u1"},
            "stream": True,
        },
        caller="local",
    )
    assert asked.body == {
        "messages": [
            {"role": "system", "content": "you are an agent"},
            {"role": "user", "content": "weather in Oslo and Rome?"},
            {
                "role": "assistant",
                "content": "checking",
                "tool_calls": [
                    {
                        "id": "toolu_1",
                        "type": "function",
                        "function": {"name": "weather", "arguments": '{"city":"Oslo"}'},
                    },
                    {
                        "id": "toolu_2",
                        "type": "function",
                        "function": {"name": "weather", "arguments": '{"city":"Rome"}'},
                    },
                ],
            },
            {"role": "tool", "tool_call_id": "toolu_1", "content": "3C"},
            {"role": "tool", "tool_call_id": "toolu_2", "content": "18C"},
            {"role": "assistant", "content": "Oslo 3C, Rome 18C."},
            {"role": "user", "content": "thanks"},
        ],
        "max_tokens": 1024,
        "tools": [
            {
                "type": "function",
                "function": {
                    "name": "weather",
                    "description": "Weather in a city",
                    "parameters": WEATHER["input_schema"],
                },
            }
        ],
        "tool_choice": "auto",
    }
    assert asked.stream and asked.has_tools
    assert (asked.model, asked.collection, asked.suffix_reply) == ("bench/core", "core", "route")


def test_a_failed_tool_result_reaches_the_model_marked_and_its_images_follow_in_a_user_message():
    asked = _decode(
        messages=[
            {"role": "user", "content": "screenshot?"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "shot", "input": {}}]},
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "t1", "is_error": True, "content": "no display"},
                ],
            },
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t2", "name": "shot", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t2", "content": [PIXEL]}]},
        ]
    )
    messages = asked.messages
    assert messages[1]["tool_calls"][0]["function"]["arguments"] == "{}"
    assert messages[2] == {"role": "tool", "tool_call_id": "t1", "content": "Error: no display"}
    assert messages[4]["role"] == "tool" and messages[4]["tool_call_id"] == "t2"
    assert "image" in messages[4]["content"]
    assert messages[5] == {
        "role": "user",
        "content": [{"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBO"}}],
    }


def test_url_images_become_image_url_parts():
    image = {"type": "image", "source": {"type": "url", "url": "https://example.org/a.png"}}
    asked = _decode(messages=[{"role": "user", "content": [{"type": "text", "text": "what?"}, image]}])
    assert asked.messages[0]["content"] == [
        {"type": "text", "text": "what?"},
        {"type": "image_url", "image_url": {"url": "https://example.org/a.png"}},
    ]


@pytest.mark.parametrize(
    ("choice", "expected"),
    [
        ({"type": "auto"}, {"tool_choice": "auto"}),
        ({"type": "any"}, {"tool_choice": "required"}),
        ({"type": "none"}, {"tool_choice": "none"}),
        (
            {"type": "tool", "name": "weather"},
            {"tool_choice": {"type": "function", "function": {"name": "weather"}}},
        ),
        (
            {"type": "any", "disable_parallel_tool_use": True},
            {"tool_choice": "required", "parallel_tool_calls": False},
        ),
    ],
    ids=["auto", "any", "none", "tool", "no-parallel"],
)
def test_tool_choice_becomes_the_chat_tool_choice(choice: dict[str, Any], expected: dict[str, Any]):
    body = _decode(tools=[WEATHER], tool_choice=choice).body
    assert {k: body[k] for k in ("tool_choice", "parallel_tool_calls") if k in body} == expected


@pytest.mark.parametrize(
    ("extra", "said"),
    [
        ({"tools": [WEATHER], "tool_choice": {"type": "tool", "name": "clock"}}, "not in `tools`"),
        ({"tool_choice": {"type": "any"}}, "needs tools"),
        ({"tools": [WEATHER], "tool_choice": {"type": "sometimes"}}, "auto, any, tool or none"),
        ({"tools": [{"name": "f"}]}, "input_schema"),
        ({"tools": [{"type": "web_search_20250305", "name": "web_search"}]}, "server tools"),
        ({"tools": [{"type": "bash_20250124", "name": "bash"}]}, "server tools"),
        ({"mcp_servers": [{"type": "url", "url": "https://mcp.example.org", "name": "x"}]}, "server tools"),
        ({"output_config": {"format": {"type": "xml"}}}, "json_schema"),
    ],
    ids=[
        "unknown-tool",
        "choice-without-tools",
        "unknown-choice",
        "no-schema",
        "web-search",
        "bash",
        "mcp",
        "output-format",
    ],
)
def test_what_a_member_cannot_be_given_is_refused(extra: dict[str, Any], said: str):
    with pytest.raises(BadRequest, match=said):
        _decode(**extra)


def test_refusals_use_the_anthropic_error_shape():
    document = {
        "type": "document",
        "source": {"type": "base64", "media_type": "application/pdf", "data": "x"},
    }
    with pytest.raises(BadRequest) as caught:
        _decode(messages=[{"role": "user", "content": [document]}])
    body = AnthropicMessages().error_body(caught.value)
    assert body["type"] == "error" and body["error"]["type"] == "invalid_request_error"
    assert "PDF" in body["error"]["message"]


def test_sampling_fields_are_renamed_and_anthropic_service_fields_dropped():
    body = _decode(
        temperature=0.2,
        top_p=0.9,
        top_k=5,
        stop_sequences=["END"],
        metadata={"user_id": "u"},
        thinking={"type": "enabled", "budget_tokens": 2048},
        service_tier="auto",
        bench={"reply": "route"},
    ).body
    assert {k: v for k, v in body.items() if k != "messages"} == {
        "max_tokens": 100,
        "temperature": 0.2,
        "top_p": 0.9,
        "stop": ["END"],
    }


def test_output_format_becomes_a_json_schema_response_format():
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}}
    body = _decode(output_config={"format": {"type": "json_schema", "schema": schema}, "effort": "high"}).body
    assert body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "output", "schema": schema},
    }


def test_bench_reply_field_is_read():
    asked = ROUTE.decode_route(
        {"model": "core", "messages": [{"role": "user", "content": "hi"}], "bench": {"reply": "route"}},
        caller="key-1",
    )
    assert (asked.collection, asked.reply, asked.caller, asked.stream) == ("core", "route", "key-1", False)


# ---- the whole reply ------------------------------------------------------------------


def test_whole_reply_has_the_text_then_a_tool_use_block_per_call():
    events = turn(
        text_chunk("Let me check."),
        call_chunk(0, "call_a", "weather", '{"city":'),
        arguments_chunk(0, '"Oslo"}'),
        call_chunk(1, "call_b", "weather", '{"city":"Rome"}'),
        finish_chunk("tool_calls", prompt_tokens=50, completion_tokens=20),
    )
    reply = ROUTE.render_route(_decode(), events)
    assert reply == {
        "id": "msg_c1.1",
        "type": "message",
        "role": "assistant",
        "model": "bench/core",
        "content": [
            {"type": "text", "text": "Let me check."},
            {"type": "tool_use", "id": "call_a", "name": "weather", "input": {"city": "Oslo"}},
            {"type": "tool_use", "id": "call_b", "name": "weather", "input": {"city": "Rome"}},
        ],
        "stop_reason": "tool_use",
        "stop_sequence": None,
        "usage": {"input_tokens": 50, "output_tokens": 20},
        "bench": BENCH,
    }
    message = anthropic.types.Message.model_validate(reply)
    assert message.stop_reason == "tool_use" and message.model_extra == {"bench": BENCH}


@pytest.mark.parametrize(
    ("finish", "stop"),
    [
        ("stop", "end_turn"),
        ("length", "max_tokens"),
        ("content_filter", "refusal"),
        ("tool_calls", "tool_use"),
    ],
)
def test_finish_reason_becomes_the_anthropic_stop_reason(finish: str, stop: str):
    reply = ROUTE.render_route(_decode(), turn(text_chunk("hi"), finish_chunk(finish)))
    assert reply["stop_reason"] == stop


def test_a_call_that_finished_as_stop_is_still_a_tool_use():
    reply = ROUTE.render_route(_decode(), turn(call_chunk(0, "c", "clock", "{}"), finish_chunk("stop")))
    assert reply["stop_reason"] == "tool_use" and reply["content"] == [
        {"type": "tool_use", "id": "c", "name": "clock", "input": {}}
    ]


@pytest.mark.parametrize("arguments", ["", "not json", "[1, 2]"])
def test_arguments_that_are_not_a_json_object_become_an_empty_input(arguments: str):
    reply = ROUTE.render_route(
        _decode(), turn(call_chunk(0, "c", "clock", arguments), finish_chunk("tool_calls"))
    )
    assert reply["content"][0]["input"] == {}


def test_usage_is_estimated_when_the_member_sent_none():
    reply = ROUTE.render_route(_decode(), turn(text_chunk("y" * 400), finish_chunk("stop")))
    assert reply["usage"]["input_tokens"] > 0 and reply["usage"]["output_tokens"] == 110


# ---- the stream -----------------------------------------------------------------------


async def test_stream_relays_argument_deltas_as_they_arrive_and_the_sdk_rebuilds_the_message():
    argument_pieces = ['{"ci', 'ty": "Os', 'lo"}']
    events = turn(
        thought_chunk("hmm"),
        text_chunk("Checking "),
        text_chunk("now."),
        call_chunk(0, "call_a", "weather", argument_pieces[0]),
        arguments_chunk(0, argument_pieces[1]),
        arguments_chunk(0, argument_pieces[2]),
        call_chunk(1, "call_b", "clock", "{}"),
        finish_chunk("tool_calls", prompt_tokens=50, completion_tokens=20),
        beat_after=2,
    )
    raw = await _streamed(events)
    parsed = named_events(raw)
    names = [name for name, _ in parsed]
    assert names[0] == "message_start" and names[-2:] == ["message_delta", "message_stop"]
    assert "ping" in names
    assert all(data["type"] == name for name, data in parsed)
    json_deltas = [
        d["delta"]["partial_json"] for n, d in parsed if n == "content_block_delta" and d["index"] == 1
    ]
    assert json_deltas == argument_pieces
    blocks = _check_blocks(parsed)
    assert [b["type"] for b in blocks.values()] == ["text", "tool_use", "tool_use"]
    assert blocks[0]["text"] == "Checking now."
    assert (blocks[1]["id"], blocks[1]["name"], blocks[1]["input"]) == ("call_a", "weather", {})
    assert orjson.loads(blocks[1]["json"]) == {"city": "Oslo"} and blocks[2]["json"] == "{}"
    delta = parsed[-2][1]
    assert delta["delta"]["stop_reason"] == "tool_use" and delta["bench"] == BENCH
    assert delta["usage"] == {"input_tokens": 50, "output_tokens": 20}

    with (
        _client_reading(raw) as client,
        client.messages.stream(
            model="bench/core:route", max_tokens=10, messages=[{"role": "user", "content": "hi"}]
        ) as stream,
    ):
        message = stream.get_final_message()
    assert message.id == "msg_c1.1" and message.stop_reason == "tool_use"
    assert [block.type for block in message.content] == ["text", "tool_use", "tool_use"]
    assert message.content[1].input == {"city": "Oslo"} and message.content[2].input == {}
    assert message.usage.input_tokens == 50 and message.usage.output_tokens == 20


async def test_text_after_a_tool_call_closes_the_call_and_opens_a_new_text_block():
    events = turn(
        call_chunk(0, "call_a", "clock", "{}"),
        text_chunk("and "),
        text_chunk("more"),
        finish_chunk("stop"),
    )
    blocks = _check_blocks(named_events(await _streamed(events)))
    assert [(b["type"], b.get("text")) for b in blocks.values()] == [("tool_use", None), ("text", "and more")]


async def test_reasoning_alone_opens_no_block():
    parsed = named_events(await _streamed(turn(thought_chunk("thinking..."), finish_chunk("stop"))))
    assert [name for name, _ in parsed] == ["message_start", "message_delta", "message_stop"]
    assert "thinking" not in orjson.dumps([data for _, data in parsed]).decode()


async def test_a_broken_turn_ends_with_an_error_event_that_the_sdk_raises():
    events: list[RouteEvent] = [
        *turn(text_chunk("partial"))[:-1],
        RouteBroken("the member went away", bench=BENCH),
    ]
    raw = await _streamed(events)
    parsed = named_events(raw)
    assert parsed[-1] == (
        "error",
        {"type": "error", "error": {"type": "api_error", "message": "the member went away"}},
    )
    assert "message_stop" not in [name for name, _ in parsed]
    with (
        _client_reading(raw) as client,
        pytest.raises(anthropic.APIStatusError, match="the member went away"),
        client.messages.stream(
            model="bench/core:route", max_tokens=10, messages=[{"role": "user", "content": "hi"}]
        ) as stream,
    ):
        stream.until_done()


async def test_a_heartbeat_before_the_member_answers_is_a_ping():
    events: list[RouteEvent] = [Heartbeat(), *turn(text_chunk("hi"), finish_chunk("stop"))]
    parsed = named_events(await _streamed(events))
    assert [name for name, _ in parsed][:2] == ["ping", "message_start"]


# ---- laying a turn out in blocks ------------------------------------------------------


def _laid_out(*pieces: Any) -> list[Any]:
    blocks = TurnBlocks()
    events = [event for piece in pieces for event in blocks.add(piece)]
    return events + blocks.finish()


def test_interleaved_arguments_of_two_calls_wait_until_the_open_call_is_whole():
    first, second = ToolCallStarted(0, "a", "f"), ToolCallStarted(1, "b", "g")
    events = _laid_out(
        first,
        ToolCallArguments(0, '{"x":'),
        second,
        ToolCallArguments(1, '{"y":2}'),
        ToolCallArguments(0, "1}"),
        TextPiece("done"),
    )
    assert events == [
        BlockOpened(0, first),
        BlockDelta(0, first, '{"x":'),
        BlockDelta(0, first, "1}"),
        BlockClosed(0, first, '{"x":1}'),
        BlockOpened(1, second),
        BlockDelta(1, second, '{"y":2}'),
        BlockClosed(1, second, '{"y":2}'),
        BlockOpened(2, None),
        BlockDelta(2, None, "done"),
        BlockClosed(2, None, "done"),
    ]


def test_a_call_whose_arguments_never_become_whole_closes_at_the_end_and_lets_held_pieces_out():
    first, second = ToolCallStarted(0, "a", "f"), ToolCallStarted(1, "b", "g")
    events = _laid_out(first, ToolCallArguments(0, '{"x":'), second, ReasoningPiece("hm"))
    assert events == [
        BlockOpened(0, first),
        BlockDelta(0, first, '{"x":'),
        BlockClosed(0, first, '{"x":'),
        BlockOpened(1, second),
        BlockClosed(1, second, ""),
    ]
