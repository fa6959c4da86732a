"""The Gemini adapter on its own: what it reads from a body and what it writes for events."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import orjson
import pytest
from google import genai
from google.genai import errors, types

from panelgate.core.errors import BadRequest, GatewayError, TooLarge, error_for_status
from panelgate.core.types import (
    Failed,
    Finished,
    Heartbeat,
    PanelEvent,
    PanelRequest,
    Seated,
    SeatPlan,
    TokenUsage,
)
from panelgate.formats.gemini.panel import GeminiFormat

FORMAT = GeminiFormat().for_call("bench/core", streamed=False, sse=True)
PLAN = SeatPlan(seats=(), skipped=(), shape="general", shape_by="default", members=0, explorers=0)
HI = [{"role": "user", "parts": [{"text": "hi"}]}]


def _decode(*parts: dict[str, Any], **extra: Any) -> PanelRequest:
    contents = [{"role": "user", "parts": list(parts)}] if parts else HI
    return FORMAT.decode({"contents": contents, **extra}, caller="local")


def _refused(*parts: dict[str, Any], **extra: Any) -> str:
    with pytest.raises(BadRequest) as caught:
        _decode(*parts, **extra)
    return caught.value.message


@pytest.mark.parametrize("key", ["systemInstruction", "system_instruction"])
def test_system_instruction_in_either_case_becomes_a_system_message(key: str):
    asked = _decode(**{key: {"parts": [{"text": "be brief"}, {"text": "be kind"}]}})
    assert asked.messages == [
        {"role": "system", "content": "be brief\nbe kind"},
        {"role": "user", "content": "hi"},
    ]


def test_model_turns_become_assistant_messages_and_a_missing_role_is_user():
    contents = [
        {"parts": [{"text": "hi"}]},
        {"role": "model", "parts": [{"text": "hello"}]},
        {"role": "user", "parts": [{"text": "again"}]},
    ]
    asked = FORMAT.decode({"contents": contents}, caller="local")
    assert [m["role"] for m in asked.messages] == ["user", "assistant", "user"]
    assert asked.messages[1]["content"] == "hello"


def test_model_and_options_come_from_the_call_and_generation_config():
    bound = GeminiFormat().for_call("bench/core:merged", streamed=True, sse=False)
    asked = bound.decode(
        {
            "contents": HI,
            "with": ["m4"],
            "bench": {"reply": "all"},
            "generation_config": {
                "max_output_tokens": 100,
                "temperature": 0.2,
                "topP": 0.9,
                "stopSequences": ["END"],
                "responseMimeType": "application/json",
                "thinkingConfig": {"thinkingBudget": 0},
            },
        },
        caller="local",
    )
    assert (asked.model, asked.collection, asked.suffix_reply, asked.reply, asked.stream) == (
        "bench/core:merged",
        "core",
        "merged",
        "all",
        True,
    )
    assert asked.nominees == ("m4",)
    assert asked.options == {
        "max_tokens": 100,
        "temperature": 0.2,
        "top_p": 0.9,
        "stop": ["END"],
        "response_format": {"type": "json_object"},
    }
    assert not asked.tools_offered and not asked.tool_history


def test_inline_image_becomes_a_data_url_part():
    asked = _decode(
        {"text": "what is this?"}, {"inline_data": {"mime_type": "image/png", "data": "iVBORw0KGgo="}}
    )
    assert asked.messages[0]["content"] == [
        {"type": "text", "text": "what is this?"},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}},
    ]


def test_url_safe_base64_from_googles_sdks_becomes_a_standard_data_url():
    asked = _decode({"inlineData": {"mimeType": "image/png", "data": "ab-_cd"}})
    assert asked.messages[0]["content"][0]["image_url"]["url"] == "data:image/png;base64,ab+/cd=="


def test_file_data_with_an_http_image_url_becomes_its_url():
    asked = _decode({"fileData": {"mimeType": "image/jpeg", "fileUri": "https://example.org/cat.jpg"}})
    assert asked.messages[0]["content"] == [
        {"type": "image_url", "image_url": {"url": "https://example.org/cat.jpg"}}
    ]


@pytest.mark.parametrize(
    ("part", "said"),
    [
        ({"inlineData": {"mimeType": "application/pdf", "data": "JVBERi0="}}, "application/pdf"),
        ({"inlineData": {"mimeType": "audio/mp3", "data": "SUQz"}}, "audio/mp3"),
        (
            {
                "fileData": {
                    "mimeType": "image/png",
                    "fileUri": "https://generativelanguage.googleapis.com/v1beta/files/abc",
                }
            },
            "Files API",
        ),
        ({"fileData": {"mimeType": "image/png", "fileUri": "gs://bucket/cat.png"}}, "http(s)"),
        ({"fileData": {"mimeType": "video/mp4", "fileUri": "https://example.org/a.mp4"}}, "video/mp4"),
        ({"executableCode": {"language": "PYTHON", "code": "print(1)"}}, "Google-hosted"),
        ({"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "1"}}, "Google-hosted"),
        ({"videoMetadata": {"fps": 1}}, "text or image"),
    ],
)
def test_parts_a_panel_cannot_pass_on_are_refused(part: dict[str, Any], said: str):
    assert said in _refused(part)


def test_text_parts_of_one_turn_are_joined_a_line_apart():
    assert _decode({"text": "hello"}, {"text": "world"}).messages[0]["content"] == "hello\nworld"


def test_file_data_with_a_malformed_url_is_refused():
    with pytest.raises(BadRequest, match="not a URL") as caught:
        _decode({"fileData": {"fileUri": "https://[::1/cat.png", "mimeType": "image/png"}})
    assert caught.value.param == "contents"


def test_thought_parts_are_dropped():
    contents = [
        *HI,
        {"role": "model", "parts": [{"text": "pondering", "thought": True}, {"text": "hello"}]},
    ]
    asked = FORMAT.decode({"contents": contents}, caller="local")
    assert asked.messages[1] == {"role": "assistant", "content": "hello"}


def test_function_calls_and_responses_become_numbered_tool_calls_and_tool_messages():
    contents = [
        *HI,
        {"role": "model", "parts": [{"functionCall": {"name": "f", "args": {"x": 1}}}]},
        {"role": "user", "parts": [{"functionResponse": {"name": "f", "response": {"y": 2}}}]},
    ]
    asked = FORMAT.decode({"contents": contents}, caller="local")
    assert asked.tool_history
    assert asked.messages[1]["tool_calls"] == [
        {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": '{"x":1}'}}
    ]
    assert asked.messages[2] == {"role": "tool", "tool_call_id": "call_1", "content": '{"y":2}'}


def test_function_declarations_are_counted_as_offered_tools():
    declared = [{"name": "f", "parameters": {"type": "OBJECT"}}, {"name": "g"}]
    asked = _decode(tools=[{"functionDeclarations": declared}])
    assert asked.tools_offered == 2 and not asked.tool_history


def test_empty_tool_list_is_not_tools():
    assert _decode(tools=[]).tools_offered == 0


@pytest.mark.parametrize("tool", [{"googleSearch": {}}, {"url_context": {}}, {"codeExecution": {}}])
def test_google_hosted_tools_are_refused(tool: dict[str, Any]):
    assert "Google-hosted" in _refused(tools=[tool])


def test_cached_content_is_refused():
    assert "cached" in _refused(cachedContent="cachedContents/abc")


def test_unknown_role_is_refused_pointing_to_system_instruction():
    with pytest.raises(BadRequest, match="systemInstruction"):
        FORMAT.decode({"contents": [{"role": "system", "parts": [{"text": "x"}]}]}, caller="local")


@pytest.mark.parametrize(
    "contents",
    [[{"parts": []}], [{"role": "model", "parts": [{"text": "pondering", "thought": True}]}]],
    ids=["no-parts", "only-thoughts"],
)
def test_contents_with_nothing_to_answer_are_refused(contents: list[dict[str, Any]]):
    """They read as no message at all, and a panel asked its seats with an empty conversation."""
    body = {"contents": contents, "systemInstruction": "be brief"}
    with pytest.raises(BadRequest, match="nothing to answer") as caught:
        FORMAT.decode(body, caller="local")
    assert caught.value.param == "contents"


def test_count_tokens_reads_a_wrapped_request_and_adds_a_flat_amount_per_image():
    image = {"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}}
    wrapped = {
        "generateContentRequest": {
            "model": "models/bench/core",
            "contents": [{"parts": [{"text": "x" * 40}, image]}],
        }
    }
    asked = FORMAT.decode_count(wrapped, caller="local")
    assert FORMAT.count_tokens(asked) == {"totalTokens": 11 + 2500}
    assert FORMAT.count_tokens(
        FORMAT.decode_count({"contents": [{"parts": [{"text": "x" * 40}]}]}, caller="local")
    ) == {"totalTokens": 11}


@pytest.mark.parametrize(
    ("error", "code", "status"),
    [
        (BadRequest("no"), 400, "INVALID_ARGUMENT"),
        (TooLarge("big"), 413, "INVALID_ARGUMENT"),
        (error_for_status(404, "gone"), 404, "NOT_FOUND"),
        (error_for_status(503, "busy"), 503, "UNAVAILABLE"),
        (GatewayError("boom"), 500, "INTERNAL"),
    ],
)
def test_error_body_names_the_google_status_for_the_code(error: GatewayError, code: int, status: str):
    assert FORMAT.error_body(error) == {"error": {"code": code, "message": error.message, "status": status}}


def test_whole_reply_is_one_stopped_candidate_with_the_panels_usage_and_the_model_as_sent():
    asked = (
        GeminiFormat()
        .for_call("core", streamed=False, sse=True)
        .decode({"contents": [{"parts": [{"text": "x" * 40}]}]}, caller="local")
    )
    finished = Finished(content="y" * 400, bench={}, usage=TokenUsage(11, 110))
    reply = FORMAT.render(asked, [Seated("p1", "core", PLAN, "all"), finished])
    assert reply == {
        "candidates": [
            {"content": {"role": "model", "parts": [{"text": "y" * 400}]}, "finishReason": "STOP", "index": 0}
        ],
        "modelVersion": "core",
        "responseId": "p1",
        "usageMetadata": {"promptTokenCount": 11, "candidatesTokenCount": 110, "totalTokenCount": 121},
    }


def test_reply_headers_name_every_seat_and_the_merger_as_compact_json():
    seat = {
        "call": "p1.member1",
        "seat": "member",
        "alias": "m1",
        "status": "ok",
        "seconds": 1.0,
        "answer": "a",
        "usage": {"input": 3, "output": 1, "estimated": False},
    }
    merger = {**seat, "call": "p1.merger", "seat": "merger", "alias": "mg"}
    headers = FORMAT.reply_headers([Finished(content="", bench={"seats": [seat], "merger": merger})])
    usage = '"usage":{"input":3,"output":1,"estimated":false}'
    assert headers == {
        "X-Bench-Seats": f'[{{"call":"p1.member1","seat":"member","alias":"m1","status":"ok",{usage}}},'
        f'{{"call":"p1.merger","seat":"merger","alias":"mg","status":"ok",{usage}}}]'
    }


async def _events(*events: PanelEvent) -> AsyncIterator[PanelEvent]:
    for event in events:
        yield event


async def _streamed(fmt: GeminiFormat, *events: PanelEvent) -> bytes:
    return b"".join([c async for c in fmt.stream(_decode(), _events(*events))])


def _texts(chunk: dict[str, Any]) -> str:
    return "".join(p["text"] for p in chunk["candidates"][0]["content"]["parts"])


STORY = (
    Seated("p1", "core", PLAN, "all", text="heading\n"),
    Heartbeat(),
    Finished(content="heading\nfooter", bench={}, text="footer"),
)


async def test_sse_stream_is_heading_keep_alive_then_a_stopped_chunk_with_usage():
    fmt = GeminiFormat().for_call("bench/core", streamed=True, sse=True)
    raw = await _streamed(fmt, *STORY)
    frames = raw.split(b"\r\n\r\n")
    assert frames[-1] == b"" and all(f.startswith(b"data: ") for f in frames[:-1])
    chunks = [orjson.loads(f.removeprefix(b"data: ")) for f in frames[:-1]]
    assert [_texts(c) for c in chunks] == ["heading\n", "", "footer"]
    assert [c["candidates"][0].get("finishReason") for c in chunks] == [None, None, "STOP"]
    assert "usageMetadata" in chunks[-1] and all("usageMetadata" not in c for c in chunks[:-1])
    assert fmt.stream_media_type == "text/event-stream"


async def test_array_stream_is_one_json_array_written_element_by_element():
    fmt = GeminiFormat().for_call("bench/core", streamed=True, sse=False)
    pieces = [c async for c in fmt.stream(_decode(), _events(*STORY))]
    assert pieces[0].startswith(b"[{") and pieces[1].startswith(b",\r\n{") and pieces[-1] == b"]"
    assert [_texts(c) for c in orjson.loads(b"".join(pieces))] == ["heading\n", "", "footer"]
    assert fmt.stream_media_type == "application/json"


async def test_array_stream_closes_the_array_after_an_error_object():
    fmt = GeminiFormat().for_call("bench/core", streamed=True, sse=False)
    raw = await _streamed(
        fmt, Seated("p1", "core", PLAN, "all", text="heading\n"), Failed(503, "upstream gone")
    )
    chunks = orjson.loads(raw)
    assert chunks[-1] == {"error": {"code": 503, "message": "upstream gone", "status": "UNAVAILABLE"}}


async def test_sdk_raises_on_an_error_after_the_start():
    fmt = GeminiFormat().for_call("bench/core", streamed=True, sse=True)
    raw = await _streamed(
        fmt, Seated("p1", "core", PLAN, "all", text="heading\n"), Failed(503, "upstream gone")
    )
    transport = httpx.MockTransport(
        lambda _: httpx.Response(200, headers={"content-type": "text/event-stream"}, content=raw)
    )
    client = genai.Client(
        api_key="x",
        http_options=types.HttpOptions(
            base_url="http://gateway.invalid",
            api_version="v1beta",
            httpx_client=httpx.Client(transport=transport),
        ),
    )
    seen: list[str] = []
    with pytest.raises(errors.ServerError, match="upstream gone"):
        for chunk in client.models.generate_content_stream(model="bench/core", contents="hi"):
            seen.append(chunk.text or "")
    assert seen == ["heading\n"]
