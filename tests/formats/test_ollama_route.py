"""Ollama in route mode on its own: the OpenAI body a request becomes, and the replies a turn makes."""

from __future__ import annotations

import base64
from collections.abc import AsyncIterator
from typing import Any

import httpx
import ollama
import orjson
import pytest

from panelgate.core.errors import BadRequest
from panelgate.core.route import RouteBroken, RouteChunk, RouteEnded, RouteEvent, RouteRequest, RouteStarted
from panelgate.core.turn import TurnReader
from panelgate.core.types import Heartbeat
from panelgate.formats.ollama.route import OllamaChatRoute, OllamaGenerateRoute

CHAT = OllamaChatRoute()
GENERATE = OllamaGenerateRoute()
PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR").decode()
WEATHER = {
    "type": "function",
    "function": {
        "name": "weather",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    },
}


def _chat(**body: Any) -> RouteRequest:
    return CHAT.decode_route(
        {"model": "bench/core:route", "messages": [{"role": "user", "content": "hi"}], **body}, caller="local"
    )


def _call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"function": {"name": name, "arguments": arguments}}


def _openai_call(call_id: str, name: str, arguments: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def test_a_whole_tool_loop_becomes_one_openai_body_with_numbered_and_matched_calls():
    messages = [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "weather here and in Rome, and the time?", "images": [PNG]},
        {
            "role": "assistant",
            "content": "",
            "thinking": "two cities",
            "tool_calls": [_call("weather", city="Oslo"), _call("clock"), _call("weather", city="Rome")],
        },
        {"role": "tool", "tool_name": "weather", "content": "3C"},
        {"role": "tool", "tool_name": "weather", "content": "18C"},
        {"role": "tool", "content": "noon"},
        {"role": "assistant", "content": "Cold, warm, noon."},
    ]
    asked = CHAT.decode_route(
        {
            "model": "bench/core:route:latest",
            "messages": messages,
            "tools": [WEATHER],
            "options": {
                "temperature": 0.2,
                "top_p": 0.9,
                "num_predict": 64,
                "stop": ["X"],
                "seed": 7,
                "top_k": 4,
            },
            "format": {"type": "object"},
            "think": True,
            "keep_alive": "5m",
        },
        caller="local",
    )
    assert asked.body == {
        "messages": [
            {"role": "system", "content": "be brief"},
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "weather here and in Rome, and the time?"},
                    {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}},
                ],
            },
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    _openai_call("call_1", "weather", '{"city":"Oslo"}'),
                    _openai_call("call_2", "clock", "{}"),
                    _openai_call("call_3", "weather", '{"city":"Rome"}'),
                ],
            },
            {"role": "tool", "content": "3C", "tool_call_id": "call_1"},
            {"role": "tool", "content": "18C", "tool_call_id": "call_3"},
            {"role": "tool", "content": "noon", "tool_call_id": "call_2"},
            {"role": "assistant", "content": "Cold, warm, noon."},
        ],
        "tools": [WEATHER],
        "temperature": 0.2,
        "top_p": 0.9,
        "max_tokens": 64,
        "stop": ["X"],
        "seed": 7,
        "response_format": {
            "type": "json_schema",
            "json_schema": {"name": "reply", "schema": {"type": "object"}},
        },
    }
    assert (asked.model, asked.collection, asked.suffix_reply, asked.stream) == (
        "bench/core",
        "core",
        "route",
        True,
    )


def test_a_tool_result_naming_no_open_call_answers_the_oldest_open_call():
    messages = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": "", "tool_calls": [_call("a"), _call("b")]},
        {"role": "tool", "tool_name": "c", "content": "1"},
        {"role": "tool", "tool_name": "b", "content": "2"},
    ]
    asked = _chat(messages=messages)
    assert [m["tool_call_id"] for m in asked.messages[2:]] == ["call_1", "call_2"]


def test_ids_a_client_does_send_are_kept_and_matched():
    messages = [
        {"role": "user", "content": "go"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"id": "x1", **_call("a")}, {"id": "x2", **_call("a")}],
        },
        {"role": "tool", "tool_call_id": "x2", "content": "2"},
        {"role": "tool", "tool_call_id": "x1", "content": "1"},
    ]
    asked = _chat(messages=messages)
    assert [c["id"] for c in asked.messages[1]["tool_calls"]] == ["x1", "x2"]
    assert [m["tool_call_id"] for m in asked.messages[2:]] == ["x2", "x1"]


def test_a_tool_result_with_no_open_call_is_refused():
    messages = [{"role": "user", "content": "go"}, {"role": "tool", "tool_name": "a", "content": "1"}]
    with pytest.raises(BadRequest, match="no open tool call"):
        _chat(messages=messages)


def test_unlimited_num_predict_sends_no_max_tokens_and_json_format_is_a_json_object():
    asked = _chat(options={"num_predict": -1}, format="json")
    assert asked.body == {
        "messages": [{"role": "user", "content": "hi"}],
        "response_format": {"type": "json_object"},
    }


def test_tools_run_elsewhere_are_refused():
    with pytest.raises(BadRequest, match="runs at the vendor"):
        _chat(tools=[{"type": "web_search"}])


def test_log_probabilities_are_refused():
    with pytest.raises(BadRequest, match="log probabilities"):
        _chat(logprobs=True)


def test_generate_prompt_system_and_images_become_one_turn():
    asked = GENERATE.decode_route(
        {
            "model": "bench/core:route",
            "system": "be brief",
            "prompt": "what?",
            "images": [PNG],
            "stream": False,
        },
        caller="local",
    )
    assert asked.body["messages"] == [
        {"role": "system", "content": "be brief"},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "what?"},
                {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}},
            ],
        },
    ]
    assert not asked.stream


@pytest.mark.parametrize(
    ("extra", "said"),
    [
        ({"tools": [WEATHER]}, "/api/chat"),
        ({"raw": True}, "chat template"),
        ({"context": [1, 2]}, "/api/chat"),
    ],
)
def test_generate_refuses_what_it_cannot_carry(extra: dict[str, Any], said: str):
    with pytest.raises(BadRequest, match=said):
        GENERATE.decode_route({"model": "bench/core:route", "prompt": "hi", **extra}, caller="local")


# ---- replies -----------------------------------------------------------------------------------

STARTED = RouteStarted(conversation="r1", call="r1.1", alias="m1", served_id="vendor/m1")
BENCH = {"conversation": "r1", "call": "r1.1", "model": "m1", "seconds": 1.5}


def _text(text: str) -> dict[str, Any]:
    return {"choices": [{"index": 0, "delta": {"content": text}}]}


def _tool_delta(index: int, *, call_id: str = "", name: str = "", arguments: str = "") -> dict[str, Any]:
    function = {k: v for k, v in (("name", name), ("arguments", arguments)) if v}
    call: dict[str, Any] = {"index": index, "function": function, **({"id": call_id} if call_id else {})}
    return {"choices": [{"index": 0, "delta": {"tool_calls": [call]}}]}


def _finish(reason: str, **usage: Any) -> dict[str, Any]:
    return {
        "choices": [{"index": 0, "delta": {}, "finish_reason": reason}],
        **({"usage": usage} if usage else {}),
    }


def _turn(*chunks: dict[str, Any]) -> list[RouteEvent]:
    """The events of one turn, read from OpenAI chunks as the engine reads them."""
    reader = TurnReader()
    events: list[RouteEvent] = [STARTED]
    events += [RouteChunk(chunk, tuple(reader.feed(chunk))) for chunk in chunks]
    events.append(
        RouteEnded(
            bench=BENCH,
            finish_reason=reader.finish_reason,
            usage=reader.usage,
            text=reader.text,
            reasoning=reader.reasoning,
            tool_calls=tuple(reader.tool_calls),
        )
    )
    return events


TOOL_TURN = (
    _text("Checking "),
    _text("both."),
    _tool_delta(0, call_id="c1", name="weather", arguments='{"city":'),
    _tool_delta(0, arguments='"Oslo"}'),
    _tool_delta(1, call_id="c2", name="weather", arguments='{"city":"Rome"}'),
    _finish("tool_calls", prompt_tokens=30, completion_tokens=12),
)
OSLO = {"function": {"name": "weather", "arguments": {"city": "Oslo"}}}
ROME = {"function": {"name": "weather", "arguments": {"city": "Rome"}}}


def test_whole_chat_reply_has_the_text_the_calls_as_objects_and_bench():
    reply = CHAT.render_route(_chat(), _turn(*TOOL_TURN))
    assert reply["message"] == {"role": "assistant", "content": "Checking both.", "tool_calls": [OSLO, ROME]}
    assert (reply["model"], reply["done"], reply["done_reason"]) == ("bench/core", True, "stop")
    assert (reply["prompt_eval_count"], reply["eval_count"]) == (30, 12)
    assert reply["total_duration"] == 1_500_000_000 and reply["bench"] == BENCH
    parsed = ollama.ChatResponse.model_validate(reply)
    assert [(c.function.name, c.function.arguments) for c in parsed.message.tool_calls or []] == [
        ("weather", {"city": "Oslo"}),
        ("weather", {"city": "Rome"}),
    ]


def test_a_reply_cut_short_says_length_and_counts_are_estimated_without_usage():
    reply = CHAT.render_route(_chat(), _turn(_text("y" * 40), _finish("length")))
    assert reply["done_reason"] == "length" and "tool_calls" not in reply["message"]
    assert (reply["prompt_eval_count"], reply["eval_count"]) == (1, 11)


def test_whole_generate_reply_puts_the_text_in_response():
    asked = GENERATE.decode_route({"model": "bench/core:route", "prompt": "hi"}, caller="local")
    reply = GENERATE.render_route(asked, _turn(_text("hello"), _finish("stop")))
    assert reply["response"] == "hello" and "message" not in reply
    assert ollama.GenerateResponse.model_validate(reply).response == "hello"


async def _events(events: list[RouteEvent]) -> AsyncIterator[RouteEvent]:
    for event in events:
        yield event


async def _streamed(route: OllamaChatRoute | OllamaGenerateRoute, events: list[RouteEvent]) -> bytes:
    asked = (
        _chat() if isinstance(route, OllamaChatRoute) else GENERATE.decode_route({"prompt": "hi"}, caller="x")
    )
    return b"".join([line async for line in route.stream_route(asked, _events(events))])


def _lines(raw: bytes) -> list[dict[str, Any]]:
    assert raw.endswith(b"\n")
    return [orjson.loads(line) for line in raw.splitlines()]


async def test_chat_stream_sends_text_then_each_call_in_a_line_of_its_own_then_done():
    events = _turn(*TOOL_TURN)
    events.insert(2, Heartbeat())
    lines = _lines(await _streamed(CHAT, events))
    assert [line["message"] for line in lines] == [
        {"role": "assistant", "content": "Checking "},
        {"role": "assistant", "content": ""},
        {"role": "assistant", "content": "both."},
        {"role": "assistant", "content": "", "tool_calls": [OSLO]},
        {"role": "assistant", "content": "", "tool_calls": [ROME]},
        {"role": "assistant", "content": ""},
    ]
    assert [line["done"] for line in lines] == [False] * 5 + [True]
    last = lines[-1]
    assert last["bench"] == BENCH and last["done_reason"] == "stop" and last["eval_count"] == 12
    assert all("bench" not in line for line in lines[:-1])
    for line in lines:
        ollama.ChatResponse.model_validate(line)


async def test_text_after_a_completed_call_follows_it_in_order():
    events = _turn(
        _tool_delta(0, call_id="c1", name="weather", arguments='{"city":"Oslo"}'),
        {
            "choices": [
                {
                    "index": 0,
                    "delta": {
                        "content": "and",
                        "tool_calls": [{"index": 1, "id": "c2", "function": {"name": "weather"}}],
                    },
                }
            ]
        },
    )
    messages = [line["message"] for line in _lines(await _streamed(CHAT, events))]
    assert messages[:2] == [
        {"role": "assistant", "content": "and"},
        {"role": "assistant", "content": "", "tool_calls": [OSLO]},
    ]
    assert messages[2]["tool_calls"] == [{"function": {"name": "weather", "arguments": {}}}]


async def test_generate_stream_puts_text_in_response():
    lines = _lines(await _streamed(GENERATE, _turn(_text("he"), _text("llo"), _finish("stop"))))
    assert [line["response"] for line in lines] == ["he", "llo", ""]
    assert lines[-1]["done"] is True and lines[-1]["bench"] == BENCH


async def test_a_member_breaking_part_way_is_an_error_line():
    lines = _lines(
        await _streamed(CHAT, [STARTED, *_turn(_text("hi"))[1:2], RouteBroken("member went away", {})])
    )
    assert lines[-1] == {"error": "member went away"} and len(lines) == 2


def _client(raw: bytes) -> ollama.Client:
    transport = httpx.MockTransport(
        lambda _: httpx.Response(200, headers={"content-type": "application/x-ndjson"}, content=raw)
    )
    return ollama.Client(host="http://gateway.invalid", transport=transport)


async def test_the_sdk_reads_streamed_text_and_calls():
    raw = await _streamed(CHAT, _turn(*TOOL_TURN))
    text, calls = "", []
    with _client(raw) as client:
        for part in client.chat(
            model="bench/core:route", messages=[{"role": "user", "content": "hi"}], stream=True
        ):
            text += part.message.content or ""
            calls += [(c.function.name, dict(c.function.arguments)) for c in part.message.tool_calls or []]
    assert text == "Checking both."
    assert calls == [("weather", {"city": "Oslo"}), ("weather", {"city": "Rome"})]


async def test_the_sdk_raises_when_the_member_breaks_part_way():
    raw = await _streamed(CHAT, [STARTED, *_turn(_text("hi"))[1:2], RouteBroken("member went away", {})])
    seen: list[str] = []
    with (
        _client(raw) as client,
        pytest.raises(ollama.ResponseError, match="member went away"),
    ):
        for part in client.chat(model="bench/core", messages=[{"role": "user", "content": "x"}], stream=True):
            seen.append(part.message.content or "")
    assert seen == ["hi"]
