"""Gemini in route mode on its own: the OpenAI body a request becomes, and the replies a turn makes."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import orjson
import pytest
from google import genai
from google.genai import errors, types

from panelgate.core.errors import BadRequest
from panelgate.core.route import RouteBroken, RouteChunk, RouteEnded, RouteEvent, RouteRequest, RouteStarted
from panelgate.core.turn import TurnReader
from panelgate.core.types import Heartbeat
from panelgate.formats.gemini.route import GeminiRoute

ROUTE = GeminiRoute().for_call("bench/core:route", streamed=False, sse=True)
HI = [{"role": "user", "parts": [{"text": "hi"}]}]
WEATHER = {
    "name": "weather",
    "description": "The weather in a city",
    "parameters": {"type": "OBJECT", "properties": {"city": {"type": "STRING"}}, "required": ["city"]},
}
WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "weather",
        "description": "The weather in a city",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    },
}


def _decode(**body: Any) -> RouteRequest:
    return ROUTE.decode_route({"contents": HI, **body}, caller="local")


def _refused(**body: Any) -> str:
    with pytest.raises(BadRequest) as caught:
        _decode(**body)
    return caught.value.message


def _call(name: str, args: dict[str, Any], call_id: str | None = None) -> dict[str, Any]:
    call: dict[str, Any] = {"name": name, "args": args}
    return {"functionCall": {**call, "id": call_id} if call_id else call}


def _answer(name: str, response: dict[str, Any], call_id: str | None = None) -> dict[str, Any]:
    answer: dict[str, Any] = {"name": name, "response": response}
    return {"functionResponse": {**answer, "id": call_id} if call_id else answer}


def _tool_message(call_id: str, response: dict[str, Any]) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": orjson.dumps(response).decode()}


def test_a_whole_tool_loop_becomes_one_openai_body_with_numbered_and_matched_calls():
    contents = [
        {"role": "user", "parts": [{"text": "weather in Oslo and Rome, then the time?"}]},
        {"role": "model", "parts": [_call("weather", {"city": "Oslo"}), _call("weather", {"city": "Rome"})]},
        {"role": "user", "parts": [_answer("weather", {"c": 3}), _answer("weather", {"c": 18})]},
        {"role": "model", "parts": [{"text": "Cold and warm."}, _call("clock", {}, "abc")]},
        {"role": "user", "parts": [_answer("clock", {"time": "noon"}, "abc")]},
    ]
    asked = ROUTE.decode_route(
        {
            "contents": contents,
            "systemInstruction": {"parts": [{"text": "be brief"}]},
            "tools": [{"functionDeclarations": [WEATHER, {"name": "clock"}]}],
            "toolConfig": {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["weather"]}},
            "generationConfig": {
                "temperature": 0.2,
                "topP": 0.9,
                "maxOutputTokens": 50,
                "stopSequences": ["X"],
            },
        },
        caller="local",
    )
    call_1 = {
        "id": "call_1",
        "type": "function",
        "function": {"name": "weather", "arguments": '{"city":"Oslo"}'},
    }
    call_2 = {
        "id": "call_2",
        "type": "function",
        "function": {"name": "weather", "arguments": '{"city":"Rome"}'},
    }
    clock = {"id": "abc", "type": "function", "function": {"name": "clock", "arguments": "{}"}}
    assert asked.body == {
        "messages": [
            {"role": "system", "content": "be brief"},
            {"role": "user", "content": "weather in Oslo and Rome, then the time?"},
            {"role": "assistant", "content": "", "tool_calls": [call_1, call_2]},
            _tool_message("call_1", {"c": 3}),
            _tool_message("call_2", {"c": 18}),
            {"role": "assistant", "content": "Cold and warm.", "tool_calls": [clock]},
            _tool_message("abc", {"time": "noon"}),
        ],
        "tools": [
            WEATHER_TOOL,
            {
                "type": "function",
                "function": {"name": "clock", "parameters": {"type": "object", "properties": {}}},
            },
        ],
        "tool_choice": {"type": "function", "function": {"name": "weather"}},
        "temperature": 0.2,
        "top_p": 0.9,
        "max_tokens": 50,
        "stop": ["X"],
    }
    assert (asked.model, asked.collection, asked.suffix_reply, asked.stream) == (
        "bench/core",
        "core",
        "route",
        False,
    )


def test_a_response_with_an_id_answers_that_call_whatever_the_order():
    contents = [
        *HI,
        {"role": "model", "parts": [_call("f", {"n": 1}, "a"), _call("f", {"n": 2}, "b")]},
        {"role": "user", "parts": [_answer("f", {"r": 2}, "b"), _answer("f", {"r": 1}, "a")]},
    ]
    messages = ROUTE.decode_route({"contents": contents}, caller="local").messages
    assert [m["tool_call_id"] for m in messages[2:]] == ["b", "a"]


def test_a_response_without_an_id_answers_the_oldest_unanswered_call_of_its_name():
    contents = [
        *HI,
        {"role": "model", "parts": [_call("f", {}), _call("g", {}), _call("f", {})]},
        {"role": "user", "parts": [_answer("f", {"r": 1}), _answer("g", {"r": 2}), _answer("f", {"r": 3})]},
    ]
    messages = ROUTE.decode_route({"contents": contents}, caller="local").messages
    assert [c["id"] for c in messages[1]["tool_calls"]] == ["call_1", "call_2", "call_3"]
    assert [m["tool_call_id"] for m in messages[2:]] == ["call_1", "call_2", "call_3"]


def test_call_ids_stay_unique_when_a_caller_repeats_one_across_turns():
    contents = [
        *HI,
        {"role": "model", "parts": [_call("f", {}, "call_0")]},
        {"role": "user", "parts": [_answer("f", {}, "call_0")]},
        {"role": "model", "parts": [_call("f", {}, "call_0")]},
        {"role": "user", "parts": [_answer("f", {}, "call_0")]},
    ]
    messages = ROUTE.decode_route({"contents": contents}, caller="local").messages
    ids = [messages[1]["tool_calls"][0]["id"], messages[3]["tool_calls"][0]["id"]]
    assert ids == ["call_0", "call_2"]
    assert [messages[2]["tool_call_id"], messages[4]["tool_call_id"]] == ids


def test_a_response_with_no_call_before_it_is_refused():
    contents = [*HI, {"role": "user", "parts": [_answer("f", {})]}]
    with pytest.raises(BadRequest, match="no unanswered functionCall"):
        ROUTE.decode_route({"contents": contents}, caller="local")


def test_an_inline_image_becomes_a_data_url_part():
    image = {"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}}
    asked = _decode(contents=[{"role": "user", "parts": [{"text": "what?"}, image]}])
    assert asked.messages[0]["content"][1] == {
        "type": "image_url",
        "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="},
    }


@pytest.mark.parametrize("tool", [{"googleSearch": {}}, {"codeExecution": {}}, {"url_context": {}}])
def test_google_hosted_tools_are_refused(tool: dict[str, Any]):
    assert "Google-hosted" in _refused(tools=[tool])


def test_gemini_schemas_become_json_schema_and_json_schemas_pass_as_sent():
    nullable = {
        "type": "OBJECT",
        "property_ordering": ["when_due", "tags"],
        "properties": {
            "when_due": {"type": "STRING", "nullable": True, "format": "date-time"},
            "tags": {"type": "ARRAY", "items": {"type": "STRING"}, "max_items": 3},
        },
    }
    raw = {"type": "object", "properties": {"q": {"type": "string"}}, "additionalProperties": False}
    declarations = [
        {"name": "todo", "parameters": nullable},
        {"name": "search", "parametersJsonSchema": raw},
    ]
    tools = _decode(tools=[{"functionDeclarations": declarations}]).body["tools"]
    assert tools[0]["function"]["parameters"] == {
        "type": "object",
        "properties": {
            "when_due": {"type": ["string", "null"], "format": "date-time"},
            "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 3},
        },
    }
    assert tools[1]["function"]["parameters"] == raw


@pytest.mark.parametrize(
    ("config", "choice"),
    [
        ({"mode": "AUTO"}, "auto"),
        ({"mode": "none"}, "none"),
        ({"mode": "VALIDATED"}, "auto"),
        ({"mode": "ANY"}, "required"),
    ],
)
def test_function_calling_modes_become_tool_choice(config: dict[str, Any], choice: str):
    asked = _decode(tools=[{"functionDeclarations": [WEATHER]}], toolConfig={"functionCallingConfig": config})
    assert asked.body["tool_choice"] == choice
    assert asked.messages == [{"role": "user", "content": "hi"}]


def test_several_allowed_functions_require_a_call_and_name_them_in_the_system_text():
    asked = _decode(
        systemInstruction="be brief",
        tools=[{"functionDeclarations": [WEATHER, {"name": "clock"}, {"name": "map"}]}],
        tool_config={
            "function_calling_config": {"mode": "ANY", "allowed_function_names": ["weather", "clock"]}
        },
    )
    assert asked.body["tool_choice"] == "required"
    assert asked.messages[0] == {
        "role": "system",
        "content": "be brief\n\nCall only these functions: weather, clock.",
    }


def test_an_allowed_function_that_is_not_declared_is_refused():
    said = _refused(
        tools=[{"functionDeclarations": [WEATHER]}],
        toolConfig={"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["nope"]}},
    )
    assert "nope" in said


def test_tool_config_without_tools_sends_no_tool_choice():
    asked = _decode(toolConfig={"functionCallingConfig": {"mode": "ANY"}})
    assert "tool_choice" not in asked.body and "tools" not in asked.body


@pytest.mark.parametrize(
    ("config", "wanted"),
    [
        ({"responseMimeType": "application/json"}, {"type": "json_object"}),
        (
            {"responseMimeType": "application/json", "responseSchema": {"type": "OBJECT"}},
            {"type": "json_schema", "json_schema": {"name": "reply", "schema": {"type": "object"}}},
        ),
        (
            {"response_mime_type": "application/json", "response_json_schema": {"type": "object"}},
            {"type": "json_schema", "json_schema": {"name": "reply", "schema": {"type": "object"}}},
        ),
    ],
)
def test_json_output_becomes_a_response_format(config: dict[str, Any], wanted: dict[str, Any]):
    assert _decode(generationConfig=config).body["response_format"] == wanted


@pytest.mark.parametrize(
    ("config", "said"),
    [
        ({"candidateCount": 2}, "several answers"),
        ({"responseMimeType": "text/x.enum"}, "text/x.enum"),
        ({"responseModalities": ["TEXT", "AUDIO"]}, "text only"),
        ({"responseLogprobs": True}, "log probabilities"),
    ],
)
def test_generation_settings_no_member_could_honour_are_refused(config: dict[str, Any], said: str):
    assert said in _refused(generationConfig=config)


@pytest.mark.parametrize("modalities", [True, 3, {"TEXT": 1}], ids=["bool", "number", "object"])
def test_response_modalities_that_are_not_a_list_are_refused(modalities: object):
    with pytest.raises(BadRequest, match="text only") as caught:
        _decode(generationConfig={"responseModalities": modalities})
    assert caught.value.param == "generationConfig"


# ---- replies -----------------------------------------------------------------------------------

STARTED = RouteStarted(conversation="r1", call="r1.1", alias="m1", served_id="vendor/m1")


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


def _turn(*chunks: dict[str, Any], bench: dict[str, Any] | None = None) -> list[RouteEvent]:
    """The events of one turn, read from OpenAI chunks as the engine reads them."""
    reader = TurnReader()
    events: list[RouteEvent] = [STARTED]
    events += [RouteChunk(chunk, tuple(reader.feed(chunk))) for chunk in chunks]
    events.append(
        RouteEnded(
            bench=bench or {"conversation": "r1"},
            finish_reason=reader.finish_reason,
            usage=reader.usage,
            text=reader.text,
            reasoning=reader.reasoning,
            tool_calls=tuple(reader.tool_calls),
        )
    )
    return events


TOOL_TURN = (
    _text("Let me "),
    _text("look."),
    _tool_delta(0, call_id="c1", name="weather", arguments='{"city":'),
    _tool_delta(0, arguments='"Oslo"}'),
    _tool_delta(1, call_id="c2", name="weather", arguments='{"city":"Rome"}'),
    _finish("tool_calls", prompt_tokens=30, completion_tokens=12),
)


def test_whole_reply_has_the_text_then_each_call_whole_with_member_usage():
    reply = ROUTE.render_route(_decode(), _turn(*TOOL_TURN))
    assert reply == {
        "candidates": [
            {
                "content": {
                    "role": "model",
                    "parts": [
                        {"text": "Let me look."},
                        {"functionCall": {"id": "c1", "name": "weather", "args": {"city": "Oslo"}}},
                        {"functionCall": {"id": "c2", "name": "weather", "args": {"city": "Rome"}}},
                    ],
                },
                "finishReason": "STOP",
                "index": 0,
            }
        ],
        "modelVersion": "bench/core",
        "responseId": "r1.1",
        "usageMetadata": {"promptTokenCount": 30, "candidatesTokenCount": 12, "totalTokenCount": 42},
    }
    parsed = types.GenerateContentResponse.model_validate(reply)
    assert [(c.id, c.name, c.args) for c in parsed.function_calls or []] == [
        ("c1", "weather", {"city": "Oslo"}),
        ("c2", "weather", {"city": "Rome"}),
    ]


@pytest.mark.parametrize(
    ("reason", "finish"),
    [("stop", "STOP"), ("length", "MAX_TOKENS"), ("content_filter", "SAFETY"), ("error", "OTHER")],
)
def test_finish_reasons_become_geminis(reason: str, finish: str):
    reply = ROUTE.render_route(_decode(), _turn(_text("x"), _finish(reason)))
    assert reply["candidates"][0]["finishReason"] == finish


def test_usage_is_estimated_when_the_member_sent_none_and_thoughts_are_counted_apart():
    estimated = ROUTE.render_route(_decode(), _turn(_text("y" * 40), _finish("stop")))
    assert estimated["usageMetadata"] == {
        "promptTokenCount": 1,
        "candidatesTokenCount": 11,
        "totalTokenCount": 12,
    }
    usage = {
        "prompt_tokens": 5,
        "completion_tokens": 20,
        "completion_tokens_details": {"reasoning_tokens": 8},
    }
    thought = ROUTE.render_route(_decode(), _turn(_text("y"), {"choices": [], "usage": usage}))
    assert thought["usageMetadata"] == {
        "promptTokenCount": 5,
        "candidatesTokenCount": 12,
        "totalTokenCount": 25,
        "thoughtsTokenCount": 8,
    }
    types.GenerateContentResponse.model_validate(thought)


def test_arguments_that_are_not_a_json_object_are_kept_whole():
    reply = ROUTE.render_route(_decode(), _turn(_tool_delta(0, call_id="c1", name="f", arguments="not json")))
    assert reply["candidates"][0]["content"]["parts"] == [
        {"functionCall": {"id": "c1", "name": "f", "args": {"arguments": "not json"}}}
    ]


async def _events(events: list[RouteEvent]) -> AsyncIterator[RouteEvent]:
    for event in events:
        yield event


async def _streamed(route: GeminiRoute, events: list[RouteEvent]) -> bytes:
    return b"".join([piece async for piece in route.stream_route(_decode(), _events(events))])


def _sse_chunks(raw: bytes) -> list[dict[str, Any]]:
    frames = raw.split(b"\r\n\r\n")
    assert frames[-1] == b"" and all(f.startswith(b"data: ") for f in frames[:-1])
    return [orjson.loads(f.removeprefix(b"data: ")) for f in frames[:-1]]


def _parts(chunk: dict[str, Any]) -> list[dict[str, Any]]:
    parts: list[dict[str, Any]] = chunk["candidates"][0]["content"]["parts"]
    return parts


SSE = GeminiRoute().for_call("bench/core:route", streamed=True, sse=True)


async def test_stream_sends_text_as_it_comes_and_each_call_whole_once_complete():
    events = _turn(*TOOL_TURN)
    events.insert(2, Heartbeat())
    chunks = _sse_chunks(await _streamed(SSE, events))
    assert [_parts(c) for c in chunks] == [
        [{"text": "Let me "}],
        [{"text": ""}],
        [{"text": "look."}],
        [{"functionCall": {"id": "c1", "name": "weather", "args": {"city": "Oslo"}}}],
        [{"functionCall": {"id": "c2", "name": "weather", "args": {"city": "Rome"}}}],
    ]
    assert [c["candidates"][0].get("finishReason") for c in chunks] == [None, None, None, None, "STOP"]
    assert chunks[-1]["usageMetadata"]["totalTokenCount"] == 42
    assert all("usageMetadata" not in c for c in chunks[:-1])
    assert {c["responseId"] for c in chunks} == {"r1.1"}
    for chunk in chunks:
        types.GenerateContentResponse.model_validate(chunk)


async def test_a_text_only_stream_ends_with_an_empty_text_part_carrying_the_finish():
    chunks = _sse_chunks(await _streamed(SSE, _turn(_text("hi"), _finish("length"))))
    assert [_parts(c) for c in chunks] == [[{"text": "hi"}], [{"text": ""}]]
    assert chunks[-1]["candidates"][0]["finishReason"] == "MAX_TOKENS"


async def test_reasoning_is_not_relayed():
    reasoning = {"choices": [{"index": 0, "delta": {"reasoning_content": "hmm"}}]}
    chunks = _sse_chunks(await _streamed(SSE, _turn(reasoning, _text("hi"))))
    assert [_parts(c) for c in chunks] == [[{"text": "hi"}], [{"text": ""}]]


async def test_array_stream_is_one_json_array_even_after_an_error():
    array = GeminiRoute().for_call("bench/core:route", streamed=True, sse=False)
    events: list[RouteEvent] = [STARTED, *_turn(_text("hi"))[1:2], RouteBroken("member went away", {})]
    chunks = orjson.loads(await _streamed(array, events))
    assert _parts(chunks[0]) == [{"text": "hi"}]
    assert chunks[-1] == {"error": {"code": 502, "message": "member went away", "status": "INTERNAL"}}
    assert array.stream_media_type == "application/json"


def _client(raw: bytes, content_type: str) -> genai.Client:
    transport = httpx.MockTransport(
        lambda _: httpx.Response(200, headers={"content-type": content_type}, content=raw)
    )
    return genai.Client(
        api_key="x",
        http_options=types.HttpOptions(
            base_url="http://gateway.invalid",
            api_version="v1beta",
            httpx_client=httpx.Client(transport=transport),
        ),
    )


async def test_the_sdk_reads_streamed_calls_as_function_calls():
    raw = await _streamed(SSE, _turn(*TOOL_TURN))
    calls: list[tuple[str | None, dict[str, Any] | None]] = []
    texts: list[str] = []
    for chunk in _client(raw, "text/event-stream").models.generate_content_stream(
        model="bench/core", contents="hi"
    ):
        calls += [(c.name, c.args) for c in chunk.function_calls or []]
        content = (chunk.candidates or [])[0].content
        texts += [p.text for p in (content.parts or [] if content else []) if p.text]
    assert "".join(texts) == "Let me look."
    assert calls == [("weather", {"city": "Oslo"}), ("weather", {"city": "Rome"})]


def test_the_sdk_reads_a_whole_reply():
    reply = ROUTE.render_route(_decode(), _turn(*TOOL_TURN))
    read = _client(orjson.dumps(reply), "application/json").models.generate_content(
        model="bench/core", contents="hi"
    )
    assert [c.name for c in read.function_calls or []] == ["weather", "weather"]
    assert read.usage_metadata is not None and read.usage_metadata.total_token_count == 42


async def test_the_sdk_raises_when_the_member_breaks_part_way():
    raw = await _streamed(SSE, [STARTED, *_turn(_text("hi"))[1:2], RouteBroken("member went away", {})])
    seen: list[str] = []
    with pytest.raises(errors.ServerError, match="member went away"):
        for chunk in _client(raw, "text/event-stream").models.generate_content_stream(
            model="bench/core", contents="x"
        ):
            seen.append(chunk.text or "")
    assert seen == ["hi"]
