"""Route turns to native Gemini members: the request they receive, the stream read back."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import orjson
import pytest

from panelgate.upstream.errors import UpstreamBadReply, UpstreamError, UpstreamStatusError
from panelgate.upstream.gemini_generate import GeminiOutbound
from panelgate.upstream.gemini_request import SKIP_SIGNATURE
from panelgate.upstream.gemini_schema import gemini_schema
from tests.support.gemini_upstream import FakeGemini
from tests.upstream.native_helpers import (
    NativeMember,
    ask,
    content_deltas,
    finish_reasons,
    fresh,
    text_of,
    tool_call_deltas,
    turn_of,
)

API = GeminiOutbound()
GEMINI = NativeMember(API, "gemini-x", provider="gemini-endpoint", key="AIza-test-key")
PNG = "data:image/png;base64,iVBORw0KGgo="
LOOKUP_PARAMETERS = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "type": "object",
    "properties": {
        "q": {"type": "string", "format": "uri", "minLength": 1},
        "limit": {"type": ["integer", "null"], "exclusiveMinimum": 0},
        "filter": {"$ref": "#/$defs/Filter"},
    },
    "required": ["q", "gone"],
    "additionalProperties": False,
    "$defs": {
        "Filter": {
            "type": "object",
            "properties": {"kind": {"const": "cat"}, "tags": {"type": "array", "items": {"type": "string"}}},
            "additionalProperties": False,
        }
    },
}
LOOKUP = {
    "type": "function",
    "function": {"name": "lookup", "description": "Look a word up.", "parameters": LOOKUP_PARAMETERS},
}
NOW = {"type": "function", "function": {"name": "now", "parameters": {"type": "object", "properties": {}}}}
CONVERSATION: dict[str, Any] = {
    "messages": [
        {"role": "system", "content": "You are terse."},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "What is in these?"},
                {"type": "image_url", "image_url": {"url": PNG}},
                {"type": "image_url", "image_url": {"url": "https://example.com/cat.png"}},
            ],
        },
        {
            "role": "assistant",
            "content": "Looking.",
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "lookup", "arguments": '{"q": "cat"}'},
                },
                {"id": "call_2", "type": "function", "function": {"name": "now", "arguments": ""}},
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "a small cat"},
        {"role": "tool", "tool_call_id": "call_2", "content": "noon"},
        {"role": "user", "content": "Thanks. Summarise."},
    ],
    "tools": [LOOKUP, NOW],
    "tool_choice": "auto",
}


@pytest.fixture(scope="module")
def gemini_server() -> Iterator[FakeGemini]:
    with FakeGemini() as server:
        yield server


@pytest.fixture
def gemini(gemini_server: FakeGemini) -> FakeGemini:
    return fresh(gemini_server)


def comparable(chunks: list[dict[str, Any]]) -> str:
    """Chunks as JSON without what differs between two readers: the second they were made in
    and the random part of the call ids they generate."""
    text = orjson.dumps([{**chunk, "created": 0} for chunk in chunks]).decode()
    return re.sub(r'"id":"call_[0-9a-f]+_', '"id":"call_', text)


# ---- the request -------------------------------------------------------------------


def test_request_streams_as_sse_with_the_key_in_a_header_not_the_url():
    base = "https://generativelanguage.googleapis.com/v1beta"
    assert (
        API.url(base, "gemini-2.5-flash") == f"{base}/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
    )
    assert API.url(base, "tunedModels/mine") == f"{base}/tunedModels/mine:streamGenerateContent?alt=sse"
    headers = API.headers("AIza-key", {"x-goog-user-project": "p"})
    assert headers["x-goog-api-key"] == "AIza-key" and headers["x-goog-user-project"] == "p"
    assert "key=" not in API.url(base, "m") and "authorization" not in headers


def test_system_messages_become_the_system_instruction():
    body = GEMINI.translated(CONVERSATION)
    assert body["systemInstruction"] == {"parts": [{"text": "You are terse."}]}
    assert [content["role"] for content in body["contents"]] == ["user", "model", "user"]


def test_images_become_inline_data_and_file_data_parts():
    parts = GEMINI.translated(CONVERSATION)["contents"][0]["parts"]
    assert parts[1] == {"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}}
    assert parts[2] == {"fileData": {"mimeType": "image/png", "fileUri": "https://example.com/cat.png"}}
    unknown = {"type": "image_url", "image_url": {"url": "https://example.com/render?id=3"}}
    only = GEMINI.translated({"messages": [{"role": "user", "content": [unknown]}]})["contents"][0]["parts"][
        0
    ]
    assert only["fileData"]["mimeType"] == "image/jpeg"


def test_assistant_tool_calls_become_function_call_parts_with_a_placeholder_signature():
    model = GEMINI.translated(CONVERSATION)["contents"][1]
    assert model == {
        "role": "model",
        "parts": [
            {"text": "Looking."},
            {"functionCall": {"name": "lookup", "args": {"q": "cat"}}, "thoughtSignature": SKIP_SIGNATURE},
            {"functionCall": {"name": "now", "args": {}}},
        ],
    }


def test_tool_results_become_function_responses_named_after_their_calls():
    last = GEMINI.translated(CONVERSATION)["contents"][2]
    assert last == {
        "role": "user",
        "parts": [
            {"functionResponse": {"name": "lookup", "response": {"result": "a small cat"}}},
            {"functionResponse": {"name": "now", "response": {"result": "noon"}}},
            {"text": "Thanks. Summarise."},
        ],
    }


def test_a_tool_result_for_a_call_never_made_is_refused():
    chat = {
        "messages": [
            {"role": "user", "content": "hi"},
            {"role": "tool", "tool_call_id": "call_9", "content": "x"},
        ]
    }
    with pytest.raises(
        UpstreamError, match="answers tool call 'call_9', which no earlier assistant message made"
    ):
        API.body("gemini-x", chat)


def test_tool_arguments_that_are_not_a_json_object_are_kept_under_raw():
    call = {"id": "c", "type": "function", "function": {"name": "lookup", "arguments": "[1, 2]"}}
    body = GEMINI.translated(
        {"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "tool_calls": [call]}]}
    )
    assert body["contents"][1]["parts"][0]["functionCall"]["args"] == {"raw": "[1, 2]"}


def test_tool_parameters_keep_only_what_gemini_accepts():
    declarations = GEMINI.translated(CONVERSATION)["tools"][0]["functionDeclarations"]
    assert declarations[0] == {
        "name": "lookup",
        "description": "Look a word up.",
        "parameters": {
            "type": "object",
            "properties": {
                "q": {"type": "string", "minLength": 1},
                "limit": {"type": "integer", "nullable": True},
                "filter": {
                    "type": "object",
                    "properties": {
                        "kind": {"enum": ["cat"]},
                        "tags": {"type": "array", "items": {"type": "string"}},
                    },
                },
            },
            "required": ["q"],
        },
    }
    assert declarations[1] == {"name": "now"}  # no properties: no parameters at all


def test_schema_variants_become_any_of_and_null_becomes_nullable():
    schema = {"oneOf": [{"type": "string"}, {"type": "null"}], "description": "x"}
    assert gemini_schema(schema) == {"type": "string", "nullable": True, "description": "x"}
    both = gemini_schema({"anyOf": [{"type": "string"}, {"type": "integer", "multipleOf": 2}]})
    assert both == {"anyOf": [{"type": "string"}, {"type": "integer"}]}
    recursive = {
        "$ref": "#/$defs/Node",
        "$defs": {"Node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/Node"}}}},
    }
    assert gemini_schema(recursive) == {"type": "object", "properties": {"next": {"type": "object"}}}


@pytest.mark.parametrize(
    ("choice", "expected"),
    [
        ("auto", {"mode": "AUTO"}),
        ("required", {"mode": "ANY"}),
        ("none", {"mode": "NONE"}),
        ({"type": "function", "function": {"name": "now"}}, {"mode": "ANY", "allowedFunctionNames": ["now"]}),
    ],
)
def test_tool_choice_becomes_the_function_calling_config(choice: object, expected: dict[str, Any]):
    body = GEMINI.translated({**CONVERSATION, "tool_choice": choice, "parallel_tool_calls": False})
    assert body["toolConfig"] == {"functionCallingConfig": expected}


def test_sampling_fields_become_the_generation_config():
    body = GEMINI.translated(
        ask("hi", temperature=1.5, top_p=0.9, max_tokens=50, max_completion_tokens=300, stop="END", seed=7)
    )
    assert body["generationConfig"] == {
        "temperature": 1.5,
        "topP": 0.9,
        "seed": 7,
        "maxOutputTokens": 300,
        "stopSequences": ["END"],
    }
    assert "generationConfig" not in GEMINI.translated(ask("hi"))


def test_response_format_asks_for_json_with_its_schema():
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "additionalProperties": False}
    chat = ask(
        "count", response_format={"type": "json_schema", "json_schema": {"name": "n", "schema": schema}}
    )
    assert GEMINI.translated(chat)["generationConfig"] == {
        "responseMimeType": "application/json",
        "responseSchema": {"type": "object", "properties": {"n": {"type": "integer"}}},
    }
    plain = GEMINI.translated(ask("count", response_format={"type": "json_object"}))
    assert plain["generationConfig"] == {"responseMimeType": "application/json"}


@pytest.mark.parametrize(
    ("message", "says"),
    [
        ({"role": "user", "content": [{"type": "file", "file": {}}]}, "'file' part"),
        (
            {"role": "user", "content": [{"type": "image_url", "image_url": {"url": "s3://b/k.png"}}]},
            "neither a data: URL",
        ),
        ({"role": "function", "content": "x"}, "role 'function'"),
    ],
)
def test_what_gemini_cannot_take_is_refused_saying_why(message: dict[str, Any], says: str):
    with pytest.raises(UpstreamError, match="Gemini API cannot take this turn") as refused:
        API.body("gemini-x", {"messages": [message]})
    assert says in refused.value.message and refused.value.kind == "other"


async def test_the_member_receives_the_translated_conversation_under_its_model_path(gemini: FakeGemini):
    gemini.require_key = "AIza-test-key"
    await GEMINI.streamed(gemini, CONVERSATION)
    received = gemini.requests_for("gemini-x")[0]
    assert received.path == "/v1/models/gemini-x:streamGenerateContent"
    assert received.body == GEMINI.translated(CONVERSATION) and "model" not in received.body
    assert received.headers["x-goog-api-key"] == "AIza-test-key"


# ---- the reply ---------------------------------------------------------------------


async def test_streamed_text_arrives_as_content_chunks_then_usage(gemini: FakeGemini):
    gemini.behave("gemini-x", answer="one two three four", chunks=4, usage=(31, 4))
    chunks = GEMINI.read_all(await GEMINI.streamed(gemini, ask("count")))
    assert content_deltas(chunks) == ["", "one t", "wo th", "ree f", "our"]
    assert chunks[0]["choices"][0]["delta"]["role"] == "assistant"
    assert finish_reasons(chunks)[-1] == "stop"
    assert chunks[-1]["choices"] == []
    assert chunks[-1]["usage"] == {"prompt_tokens": 31, "completion_tokens": 4, "total_tokens": 35}
    assert chunks[0]["model"] == "gemini-x" and {c["object"] for c in chunks} == {"chat.completion.chunk"}


async def test_function_calls_arrive_whole_as_tool_calls_with_generated_ids(gemini: FakeGemini):
    arguments = [{"q": "cat", "limit": 3}, {}]
    gemini.behave(
        "gemini-x",
        tool_calls=[
            {"name": "lookup", "arguments": arguments[0]},
            {"name": "now", "arguments": arguments[1]},
        ],
    )
    chunks = GEMINI.read_all(await GEMINI.streamed(gemini, {**ask("look"), "tools": [LOOKUP, NOW]}))
    calls = tool_call_deltas(chunks)
    assert [call["index"] for call in calls] == [0, 1]
    assert all(call["type"] == "function" and call["id"].startswith("call_") for call in calls)
    assert calls[0]["id"] != calls[1]["id"]
    assert [orjson.loads(call["function"]["arguments"]) for call in calls] == arguments
    turn = turn_of(chunks)
    assert [call.name for call in turn.tool_calls] == ["lookup", "now"]
    assert turn.finish_reason == "tool_calls" and turn.text == ""


async def test_thoughts_arrive_as_reasoning_content_and_count_as_reasoning_tokens(gemini: FakeGemini):
    gemini.behave("gemini-x", answer="42", reasoning="six times seven", usage=(10, 1))
    turn = turn_of(GEMINI.read_all(await GEMINI.streamed(gemini, ask("why"))))
    assert turn.reasoning == "six times seven" and turn.text == "42"
    assert (turn.usage.tokens_in, turn.usage.tokens_out, turn.usage.tokens_reasoning) == (10, 4, 3)


@pytest.mark.parametrize(
    ("reason", "finish"),
    [
        ("MAX_TOKENS", "length"),
        ("SAFETY", "content_filter"),
        ("RECITATION", "content_filter"),
        ("OTHER", "content_filter"),
    ],
)
async def test_finish_reasons_become_openai_finish_reasons(gemini: FakeGemini, reason: str, finish: str):
    gemini.behave("gemini-x", answer="cut", finish_reason=reason)
    assert turn_of(GEMINI.read_all(await GEMINI.streamed(gemini, ask("go")))).finish_reason == finish


async def test_a_stream_read_one_byte_at_a_time_gives_the_same_chunks(gemini: FakeGemini):
    gemini.behave("gemini-x", answer="héllo wörld", chunks=3, tool_calls=[{"name": "now", "arguments": {}}])
    whole = b"".join(await GEMINI.streamed(gemini, ask("hi")))
    by_byte = GEMINI.read_all([whole[i : i + 1] for i in range(len(whole))])
    assert comparable(by_byte) == comparable(GEMINI.read_all([whole]))


async def test_an_error_event_is_refused_after_the_text_before_it(gemini: FakeGemini):
    gemini.behave("gemini-x", answer="partial answer", chunks=2, error_after=1)
    reader = GEMINI.reader()
    chunks = reader.feed(b"".join(await GEMINI.streamed(gemini, ask("go"))))
    assert text_of(chunks) == "partial"
    with pytest.raises(UpstreamStatusError) as failed:
        reader.close()
    error = failed.value
    assert error.status == 503 and error.retryable and "UNAVAILABLE" in error.message
    assert error.partial_text == "partial"


async def test_an_error_event_saying_quota_is_a_capacity_refusal(gemini: FakeGemini):
    gemini.behave(
        "gemini-x", answer="x", error_after=0, status=429, error_message="Resource has been exhausted"
    )
    with pytest.raises(UpstreamStatusError, match="Resource has been exhausted") as failed:
        GEMINI.read_all(await GEMINI.streamed(gemini, ask("go")))
    assert failed.value.kind == "capacity" and failed.value.status == 429


async def test_a_stream_that_ends_without_a_finish_reason_is_refused(gemini: FakeGemini):
    gemini.behave("gemini-x", answer="cut short", chunks=2)
    whole = b"".join(await GEMINI.streamed(gemini, ask("go")))
    cut = whole[: whole.rindex(b"data: ")]
    with pytest.raises(UpstreamBadReply, match="stopped before the reply was complete") as failed:
        GEMINI.read_all([cut])
    assert failed.value.partial_text == "cut short"


async def test_a_reply_past_the_byte_cap_is_refused(gemini: FakeGemini):
    gemini.behave("gemini-x", answer="word " * 400, chunks=20)
    whole = b"".join(await GEMINI.streamed(gemini, ask("go")))
    with pytest.raises(UpstreamBadReply, match="1,000-byte cap"):
        GEMINI.read_all([whole[i : i + 100] for i in range(0, len(whole), 100)], max_bytes=1000)


@pytest.mark.parametrize(
    ("body", "says"),
    [
        (b'[{"candidates": []}]', "not an event stream"),
        (b"data: {oops}\r\n\r\n", "malformed event"),
        (b"", "had no events"),
        (
            b'data: {"candidates": [{"content": {"parts": [{"functionCall": {"args": {}}}]}}]}\r\n',
            "without a name",
        ),
    ],
)
def test_bytes_that_are_not_a_gemini_stream_are_refused(body: bytes, says: str):
    with pytest.raises(UpstreamBadReply, match=says):
        GEMINI.read_all([body] if body else [])


def test_a_blocked_prompt_finishes_as_content_filter():
    event = b'{"promptFeedback": {"blockReason": "SAFETY"}, "usageMetadata": {"promptTokenCount": 9}}'
    chunks = GEMINI.read_all([b"data: " + event + b"\r\n\r\n"])
    assert turn_of(chunks).finish_reason == "content_filter"
    assert chunks[-1]["usage"]["prompt_tokens"] == 9


async def test_error_text_reads_google_error_bodies(gemini: FakeGemini):
    gemini.behave("gemini-x", status=429, error_message="Quota exceeded for metric")
    status, reads = await GEMINI.exchange(gemini.url, ask("go"))
    assert (
        status == 429 and API.error_text(b"".join(reads)) == "Quota exceeded for metric (RESOURCE_EXHAUSTED)"
    )
    listed = b'[{"error": {"code": 400, "message": "API key not valid.", "status": "INVALID_ARGUMENT"}}]'
    assert API.error_text(listed) == "API key not valid. (INVALID_ARGUMENT)"
    assert API.error_text(b"Bad Gateway") == "Bad Gateway"


async def test_the_fake_refuses_schema_keys_gemini_does_not_know(gemini: FakeGemini):
    chat = {**ask("look"), "tools": [LOOKUP]}
    raw = orjson.loads(API.body("gemini-x", chat))
    raw["tools"][0]["functionDeclarations"][0]["parameters"]["additionalProperties"] = False
    status, reads = await GEMINI.exchange(gemini.url, chat, body=orjson.dumps(raw))
    assert status == 400 and 'Unknown name "additionalProperties"' in API.error_text(b"".join(reads))
