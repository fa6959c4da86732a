"""Route turns to native Anthropic Messages members: the request they receive, the stream read back."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import orjson
import pytest

from panelgate.upstream.anthropic_messages import AnthropicOutbound
from panelgate.upstream.anthropic_request import DEFAULT_MAX_TOKENS
from panelgate.upstream.anthropic_stream import AnthropicChunkReader
from panelgate.upstream.errors import UpstreamBadReply, UpstreamError, UpstreamStatusError
from tests.support.anthropic_upstream import FakeAnthropic
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

API = AnthropicOutbound()
CLAUDE = NativeMember(API, "claude-x", provider="claude-endpoint", key="sk-ant-test")
PNG = "data:image/png;base64,iVBORw0KGgo="
LOOKUP = {
    "type": "function",
    "function": {
        "name": "lookup",
        "description": "Look a word up.",
        "parameters": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]},
    },
}
CONVERSATION: dict[str, Any] = {
    "messages": [
        {"role": "system", "content": "You are terse."},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "What is in these?"},
                {"type": "image_url", "image_url": {"url": PNG}},
                {"type": "image_url", "image_url": {"url": "https://example.com/cat.jpg", "detail": "low"}},
            ],
        },
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "lookup", "arguments": '{"q": "cat"}'},
                },
                {"id": "call_2", "type": "function", "function": {"name": "lookup", "arguments": ""}},
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "a small cat"},
        {"role": "tool", "tool_call_id": "call_2", "content": "nothing"},
        {"role": "user", "content": "Thanks. Summarise."},
    ],
    "tools": [LOOKUP],
    "tool_choice": "auto",
}


@pytest.fixture(scope="module")
def anthropic_server() -> Iterator[FakeAnthropic]:
    with FakeAnthropic() as server:
        yield server


@pytest.fixture
def anthropic(anthropic_server: FakeAnthropic) -> FakeAnthropic:
    return fresh(anthropic_server)


# ---- the request -------------------------------------------------------------------


def test_request_goes_to_messages_with_the_key_and_version_headers():
    assert API.url("https://api.anthropic.com/v1", "claude-x") == "https://api.anthropic.com/v1/messages"
    headers = API.headers("sk-ant-1", {"anthropic-beta": "tools-2024"})
    assert headers["x-api-key"] == "sk-ant-1" and headers["anthropic-version"] == "2023-06-01"
    assert headers["accept"] == "text/event-stream" and headers["content-type"] == "application/json"
    assert headers["anthropic-beta"] == "tools-2024" and "authorization" not in headers


def test_leading_system_messages_are_joined_into_the_system_field():
    body = CLAUDE.translated(
        {
            "messages": [
                {"role": "system", "content": "Be terse."},
                {"role": "developer", "content": [{"type": "text", "text": "Use metric."}]},
                {"role": "user", "content": "hi"},
            ]
        }
    )
    assert body["system"] == "Be terse.\n\nUse metric."
    assert body["messages"] == [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]


def test_a_system_entry_mid_conversation_stays_in_place_as_a_reminder_in_a_user_turn():
    body = CLAUDE.translated(
        {
            "messages": [
                {"role": "system", "content": "Be terse."},
                {"role": "user", "content": "hi"},
                {"role": "assistant", "content": "hello"},
                {"role": "system", "content": "Agent types: Explore"},
                {"role": "user", "content": "list files"},
            ]
        }
    )
    assert body["system"] == "Be terse."
    assert body["messages"][2] == {
        "role": "user",
        "content": [
            {"type": "text", "text": "<system-reminder>\nAgent types: Explore\n</system-reminder>"},
            {"type": "text", "text": "list files"},
        ],
    }


def test_a_reminder_keeps_its_place_as_the_conversation_grows_and_tool_results_come_first():
    call = {"id": "c1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}
    opening = [{"role": "user", "content": "hi"}, {"role": "system", "content": "Agent types: Explore"}]
    first = CLAUDE.translated({"messages": opening})
    later = CLAUDE.translated(
        {
            "messages": [
                *opening,
                {"role": "assistant", "content": None, "tool_calls": [call]},
                {"role": "system", "content": "mind the sandbox"},
                {"role": "tool", "tool_call_id": "c1", "content": "a.txt"},
            ]
        }
    )
    assert "system" not in first and "system" not in later
    assert later["messages"][0] == first["messages"][0]
    assert [block["type"] for block in first["messages"][0]["content"]] == ["text", "text"]
    assert "Agent types" in first["messages"][0]["content"][1]["text"]
    results = later["messages"][2]["content"]
    assert [block["type"] for block in results] == ["tool_result", "text"]
    assert "mind the sandbox" in results[1]["text"]


def test_images_become_base64_and_url_image_blocks():
    content = CLAUDE.translated(CONVERSATION)["messages"][0]["content"]
    assert content[1] == {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="},
    }
    assert content[2] == {"type": "image", "source": {"type": "url", "url": "https://example.com/cat.jpg"}}


def test_a_percent_encoded_data_url_is_sent_base64_encoded():
    part = {"type": "image_url", "image_url": {"url": "data:image/svg+xml,%3Csvg%2F%3E"}}
    block = CLAUDE.translated({"messages": [{"role": "user", "content": [part]}]})["messages"][0]["content"][
        0
    ]
    assert block["source"] == {"type": "base64", "media_type": "image/svg+xml", "data": "PHN2Zy8+"}


def test_assistant_tool_calls_become_tool_use_blocks_with_parsed_input():
    assistant = CLAUDE.translated(CONVERSATION)["messages"][1]
    assert assistant == {
        "role": "assistant",
        "content": [
            {"type": "tool_use", "id": "call_1", "name": "lookup", "input": {"q": "cat"}},
            {"type": "tool_use", "id": "call_2", "name": "lookup", "input": {}},
        ],
    }


def test_tool_arguments_that_are_not_a_json_object_are_kept_under_raw():
    call = {"id": "call_9", "type": "function", "function": {"name": "lookup", "arguments": '{"q": "ca'}}
    body = CLAUDE.translated(
        {
            "messages": [
                {"role": "user", "content": "hi"},
                {"role": "assistant", "content": "", "tool_calls": [call]},
            ]
        }
    )
    assert body["messages"][1]["content"][0]["input"] == {"raw": '{"q": "ca'}


def test_tool_results_become_one_user_message_of_tool_result_blocks():
    last = CLAUDE.translated(CONVERSATION)["messages"][2]
    assert last == {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "call_1", "content": "a small cat"},
            {"type": "tool_result", "tool_use_id": "call_2", "content": "nothing"},
            {"type": "text", "text": "Thanks. Summarise."},
        ],
    }


def test_consecutive_messages_of_one_role_are_merged_and_empty_text_left_out():
    body = CLAUDE.translated(
        {
            "messages": [
                {"role": "user", "content": "one"},
                {"role": "user", "content": ""},
                {"role": "user", "content": "two"},
            ]
        }
    )
    assert body["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "one"}, {"type": "text", "text": "two"}]}
    ]


def test_tool_call_ids_anthropic_refuses_are_rewritten_alike_in_use_and_result():
    call = {"id": "functions.lookup:0", "type": "function", "function": {"name": "lookup", "arguments": "{}"}}
    body = CLAUDE.translated(
        {
            "messages": [
                {"role": "user", "content": "hi"},
                {"role": "assistant", "content": "", "tool_calls": [call]},
                {"role": "tool", "tool_call_id": "functions.lookup:0", "content": "ok"},
            ]
        }
    )
    used = body["messages"][1]["content"][0]["id"]
    assert used.startswith("functions_lookup_0_") and used.replace("_", "").isalnum()
    assert body["messages"][2]["content"][0]["tool_use_id"] == used


def test_tools_become_input_schemas_and_tool_choice_anthropic_words():
    body = CLAUDE.translated({**CONVERSATION, "tool_choice": "required", "parallel_tool_calls": False})
    assert body["tools"] == [
        {
            "name": "lookup",
            "description": "Look a word up.",
            "input_schema": LOOKUP["function"]["parameters"],  # type: ignore[index]
        }
    ]
    assert body["tool_choice"] == {"type": "any", "disable_parallel_tool_use": True}


@pytest.mark.parametrize(
    ("choice", "expected"),
    [
        ("auto", {"type": "auto"}),
        ("none", {"type": "none"}),
        ({"type": "function", "function": {"name": "lookup"}}, {"type": "tool", "name": "lookup"}),
    ],
)
def test_tool_choice_is_translated(choice: object, expected: dict[str, Any]):
    assert CLAUDE.translated({**CONVERSATION, "tool_choice": choice})["tool_choice"] == expected


def test_tool_choice_without_tools_is_dropped():
    assert "tool_choice" not in CLAUDE.translated(ask("hi", tool_choice="auto"))


def test_max_tokens_comes_from_max_completion_tokens_else_max_tokens_else_a_default():
    assert CLAUDE.translated(ask("hi", max_completion_tokens=300, max_tokens=50))["max_tokens"] == 300
    assert CLAUDE.translated(ask("hi", max_tokens=50))["max_tokens"] == 50
    assert CLAUDE.translated(ask("hi"))["max_tokens"] == DEFAULT_MAX_TOKENS


def test_sampling_fields_pass_within_anthropic_ranges():
    body = CLAUDE.translated(ask("hi", temperature=1.6, top_p=0.9, stop="END", seed=3, frequency_penalty=1))
    assert body["temperature"] == 1.0 and "top_p" not in body
    assert body["stop_sequences"] == ["END"] and "seed" not in body and "frequency_penalty" not in body
    assert CLAUDE.translated(ask("hi", top_p=0.5, stop=["a", "b"]))["top_p"] == 0.5


def test_a_json_schema_response_format_becomes_an_instruction_in_system():
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}}
    chat = ask(
        "count", response_format={"type": "json_schema", "json_schema": {"name": "n", "schema": schema}}
    )
    body = CLAUDE.translated(
        {**chat, "messages": [{"role": "system", "content": "Be exact."}, *chat["messages"]]}
    )
    assert body["system"].startswith("Be exact.\n\nAnswer with JSON only")
    assert orjson.dumps(schema).decode() in body["system"] and "response_format" not in body


@pytest.mark.parametrize(
    ("message", "says"),
    [
        ({"role": "user", "content": [{"type": "input_audio", "input_audio": {}}]}, "'input_audio' part"),
        (
            {"role": "user", "content": [{"type": "image_url", "image_url": {"url": "ftp://x/y.png"}}]},
            "neither a data: URL",
        ),
        ({"role": "tool", "content": "ok"}, "without a `tool_call_id`"),
        ({"role": "function", "content": "ok"}, "role 'function'"),
    ],
)
def test_what_anthropic_cannot_take_is_refused_saying_why(message: dict[str, Any], says: str):
    with pytest.raises(UpstreamError, match="Anthropic Messages API cannot take this turn") as refused:
        API.body("claude-x", {"messages": [message]})
    assert says in refused.value.message and refused.value.kind == "other"


async def test_the_member_receives_the_translated_conversation_and_headers(anthropic: FakeAnthropic):
    anthropic.require_key = "sk-ant-test"
    await CLAUDE.streamed(anthropic, CONVERSATION)
    received = anthropic.requests_for("claude-x")[0]
    assert received.path == "/v1/messages" and received.body == CLAUDE.translated(CONVERSATION)
    assert received.body["stream"] is True and received.body["model"] == "claude-x"
    assert received.headers["x-api-key"] == "sk-ant-test"
    assert received.headers["anthropic-version"] == "2023-06-01"


# ---- the reply ---------------------------------------------------------------------


async def test_streamed_text_arrives_as_content_chunks_then_usage(anthropic: FakeAnthropic):
    anthropic.behave("claude-x", answer="one two three four", chunks=4, usage=(31, 4))
    chunks = CLAUDE.read_all(await CLAUDE.streamed(anthropic, ask("count")))
    assert content_deltas(chunks) == ["", "one t", "wo th", "ree f", "our"]
    assert chunks[0]["choices"][0]["delta"]["role"] == "assistant"
    assert finish_reasons(chunks)[-1] == "stop"
    assert chunks[-1]["choices"] == []
    assert chunks[-1]["usage"] == {"prompt_tokens": 31, "completion_tokens": 4, "total_tokens": 35}
    assert {c["object"] for c in chunks} == {"chat.completion.chunk"} and chunks[0]["model"] == "claude-x"


async def test_tool_use_blocks_arrive_as_tool_call_deltas_whose_arguments_join_to_the_input(
    anthropic: FakeAnthropic,
):
    arguments = [{"q": "cat", "limit": 3, "tags": ["a", "b"]}, {"q": "dog"}]
    anthropic.behave("claude-x", tool_calls=[{"name": "lookup", "arguments": a} for a in arguments])
    chunks = CLAUDE.read_all(await CLAUDE.streamed(anthropic, {**ask("look"), "tools": [LOOKUP]}))
    deltas = tool_call_deltas(chunks)
    first = deltas[0]
    assert first["index"] == 0 and first["type"] == "function" and first["id"].startswith("toolu_")
    assert first["function"] == {"name": "lookup", "arguments": ""}
    assert len([d for d in deltas if d["index"] == 0]) >= 4  # the head, then several input pieces
    turn = turn_of(chunks)
    assert [orjson.loads(call.arguments) for call in turn.tool_calls] == arguments
    assert [call.name for call in turn.tool_calls] == ["lookup", "lookup"]
    assert turn.finish_reason == "tool_calls" and turn.text == ""


async def test_thinking_arrives_as_reasoning_content(anthropic: FakeAnthropic):
    anthropic.behave("claude-x", answer="42", reasoning="six times seven")
    turn = turn_of(CLAUDE.read_all(await CLAUDE.streamed(anthropic, ask("why"))))
    assert turn.reasoning == "six times seven" and turn.text == "42" and turn.finish_reason == "stop"


@pytest.mark.parametrize(
    ("stop_reason", "finish"),
    [("max_tokens", "length"), ("stop_sequence", "stop"), ("refusal", "content_filter")],
)
async def test_stop_reasons_become_openai_finish_reasons(
    anthropic: FakeAnthropic, stop_reason: str, finish: str
):
    anthropic.behave("claude-x", answer="cut", finish_reason=stop_reason)
    assert turn_of(CLAUDE.read_all(await CLAUDE.streamed(anthropic, ask("go")))).finish_reason == finish


async def test_the_engine_reads_the_whole_turn_from_the_chunks(anthropic: FakeAnthropic):
    anthropic.behave(
        "claude-x",
        answer="Let me look.",
        usage=(12, 9),
        tool_calls=[{"name": "lookup", "arguments": {"q": "x"}}],
    )
    turn = turn_of(CLAUDE.read_all(await CLAUDE.streamed(anthropic, {**ask("look"), "tools": [LOOKUP]})))
    assert turn.text == "Let me look." and turn.tool_calls[0].arguments == '{"q":"x"}'
    assert (turn.usage.tokens_in, turn.usage.tokens_out) == (12, 9)


async def test_a_stream_read_one_byte_at_a_time_gives_the_same_chunks(anthropic: FakeAnthropic):
    anthropic.behave(
        "claude-x", answer="héllo wörld", chunks=3, tool_calls=[{"name": "lookup", "arguments": {}}]
    )
    whole = b"".join(await CLAUDE.streamed(anthropic, ask("hi")))
    by_byte = CLAUDE.read_all([whole[i : i + 1] for i in range(len(whole))])
    at_once = CLAUDE.read_all([whole])
    assert [{**c, "created": 0} for c in by_byte] == [{**c, "created": 0} for c in at_once]


async def test_an_error_event_is_refused_after_the_text_before_it(anthropic: FakeAnthropic):
    anthropic.behave("claude-x", answer="partial answer", chunks=2, error_after=1)
    reads = await CLAUDE.streamed(anthropic, ask("go"))
    reader = CLAUDE.reader()
    chunks = reader.feed(b"".join(reads))
    assert text_of(chunks) == "partial"
    with pytest.raises(UpstreamStatusError) as failed:
        reader.close()
    error = failed.value
    assert error.kind == "capacity" and error.status == 529 and error.retryable
    assert "Overloaded" in error.message and error.partial_text == "partial"


async def test_an_error_event_alone_is_raised_at_once(anthropic: FakeAnthropic):
    anthropic.behave("claude-x", answer="x", error_after=0, status=429, error_message="Rate limited")
    reads = await CLAUDE.streamed(anthropic, ask("go"))
    reader = CLAUDE.reader()
    frames = b"".join(reads).split(b"\n\n")
    assert reader.feed(frames[0] + b"\n\n")  # message_start
    with pytest.raises(UpstreamStatusError, match="Rate limited") as failed:
        reader.feed(b"\n\n".join(frames[1:]))
    assert failed.value.kind == "capacity" and failed.value.status == 429


async def test_a_stream_cut_before_the_stop_reason_is_refused(anthropic: FakeAnthropic):
    anthropic.behave("claude-x", answer="cut short")
    whole = b"".join(await CLAUDE.streamed(anthropic, ask("go")))
    cut = whole[: whole.index(b"event: message_delta")]
    with pytest.raises(UpstreamBadReply, match="stopped before the reply was complete") as failed:
        CLAUDE.read_all([cut])
    assert failed.value.partial_text == "cut short"


async def test_a_reply_past_the_byte_cap_is_refused(anthropic: FakeAnthropic):
    anthropic.behave("claude-x", answer="word " * 400, chunks=20)
    reads = await CLAUDE.streamed(anthropic, ask("go"))
    with pytest.raises(UpstreamBadReply, match="1,000-byte cap"):
        CLAUDE.read_all(
            [b"".join(reads)[i : i + 100] for i in range(0, sum(map(len, reads)), 100)], max_bytes=1000
        )


@pytest.mark.parametrize(
    ("body", "says"),
    [
        (b"<html>Bad gateway</html>", "not an event stream"),
        (b"event: message_start\ndata: {not json}\n\n", "malformed event"),
        (b"", "had no events"),
        (
            b'data: {"type":"content_block_delta","index":4,"delta":{"type":"text_delta","text":"x"}}\n',
            "never started",
        ),
    ],
)
def test_bytes_that_are_not_a_messages_stream_are_refused(body: bytes, says: str):
    with pytest.raises(UpstreamBadReply, match=says):
        CLAUDE.read_all([body] if body else [])


def test_a_reply_ended_by_its_stop_reason_without_message_stop_is_complete():
    stream = (
        b'data: {"type":"message_start","message":{"id":"msg_1","model":"c","usage":{"input_tokens":5,'
        b'"cache_read_input_tokens":20}}}\n\n'
        b'data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":"ok"}}\n\n'
        b'data: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":1}}\n\n'
    )
    chunks = CLAUDE.read_all([stream])
    assert turn_of(chunks).text == "ok"
    assert chunks[-1]["usage"] == {"prompt_tokens": 25, "completion_tokens": 1, "total_tokens": 26}


async def test_error_text_reads_anthropic_error_bodies(anthropic: FakeAnthropic):
    anthropic.behave("claude-x", status=529, error_message="Overloaded")
    status, reads = await CLAUDE.exchange(anthropic.url, ask("go"))
    assert status == 529 and API.error_text(b"".join(reads)) == "overloaded_error: Overloaded"
    assert API.error_text(b"upstream connect error") == "upstream connect error"


async def test_a_missing_key_is_answered_with_an_authentication_error(anthropic: FakeAnthropic):
    anthropic.require_key = "sk-ant-right"
    status, reads = await replace(CLAUDE, key="sk-ant-wrong").exchange(anthropic.url, ask("go"))
    assert status == 401 and API.error_text(b"".join(reads)).startswith("authentication_error")


def test_the_reader_is_a_fresh_chunk_reader_each_time():
    first, second = API.reader("a", 10), API.reader("a", 10)
    assert isinstance(first, AnthropicChunkReader) and first is not second


def test_a_tool_use_block_without_input_deltas_gets_empty_object_arguments():
    stream = (
        b'data: {"type":"message_start","message":{"id":"msg_2","model":"c","usage":{"input_tokens":3}}}\n'
        b'data: {"type":"content_block_start","index":0,"content_block":'
        b'{"type":"tool_use","id":"toolu_1","name":"now","input":{}}}\n'
        b'data: {"type":"content_block_stop","index":0}\n'
        b'data: {"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":2}}\n'
        b'data: {"type":"message_stop"}\n'
    )
    turn = turn_of(CLAUDE.read_all([stream]))
    assert [(call.id, call.name, call.arguments) for call in turn.tool_calls] == [("toolu_1", "now", "{}")]
    assert turn.finish_reason == "tool_calls"
