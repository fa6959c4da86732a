"""The OpenAI Responses adapter on its own: what it reads from a body and what it writes for events."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx2
import openai
import orjson
import pytest

from panelgate.core.errors import BadRequest, GatewayError, NotFound
from panelgate.core.types import (
    Failed,
    Finished,
    Heartbeat,
    MergeDelta,
    PanelEvent,
    PanelRequest,
    Seated,
    SeatPlan,
    TokenUsage,
)
from panelgate.formats.responses.panel import OpenAIResponses

FORMAT = OpenAIResponses()
PLAN = SeatPlan(seats=(), skipped=(), shape="general", shape_by="default", members=0, explorers=0)
PIXEL = "data:image/png;base64,iVBORw0KGgo="


def _decode(input: Any = "hi", **extra: Any) -> PanelRequest:
    return FORMAT.decode({"model": "bench/core", "input": input, **extra}, caller="local")


def _user(*parts: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"role": "user", "content": list(parts)}]


def test_string_input_is_one_user_message_after_the_instructions():
    asked = _decode("say hi", instructions="be brief")
    assert asked.messages == [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "say hi"},
    ]
    assert not asked.tools_offered and not asked.tool_history and not asked.stream


def test_message_items_keep_their_order_with_developer_as_system_and_reasoning_dropped():
    asked = _decode(
        [
            {"type": "message", "role": "developer", "content": "answer in French"},
            {"role": "user", "content": [{"type": "input_text", "text": "hello"}]},
            {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "x"},
            {"role": "assistant", "content": [{"type": "output_text", "text": "bonjour", "annotations": []}]},
            {"role": "assistant", "content": [{"type": "refusal", "refusal": "non"}]},
        ]
    )
    assert asked.messages == [
        {"role": "system", "content": "answer in French"},
        {"role": "user", "content": "hello"},
        {"role": "assistant", "content": "bonjour"},
        {"role": "assistant", "content": "non"},
    ]


def test_input_image_becomes_an_image_url_part():
    asked = _decode(
        _user(
            {"type": "input_text", "text": "what is this?"},
            {"type": "input_image", "image_url": PIXEL, "detail": "auto"},
            {"type": "input_image", "image_url": "https://example.org/a.png"},
        )
    )
    assert asked.messages[0]["content"] == [
        {"type": "text", "text": "what is this?"},
        {"type": "image_url", "image_url": {"url": PIXEL}},
        {"type": "image_url", "image_url": {"url": "https://example.org/a.png"}},
    ]


@pytest.mark.parametrize(
    ("part", "said"),
    [
        ({"type": "input_image", "file_id": "file_abc"}, "uploaded file"),
        ({"type": "input_image", "image_url": "ftp://host/a.png"}, "http"),
        ({"type": "input_image"}, "image_url"),
        ({"type": "input_file", "file_id": "file_abc"}, "file \\(PDF\\)"),
        ({"type": "input_file", "file_data": "data:application/pdf;base64,JVBERi0="}, "file \\(PDF\\)"),
        ({"type": "input_audio", "input_audio": {"data": "UklGR", "format": "wav"}}, "audio"),
        ({"type": "video"}, "'video'"),
    ],
    ids=["file-id-image", "ftp-image", "no-url", "file-id", "file-data", "audio", "unknown"],
)
def test_parts_a_panel_cannot_pass_on_are_refused(part: dict[str, Any], said: str):
    with pytest.raises(BadRequest, match=said) as caught:
        _decode(_user(part))
    assert caught.value.param == "input"


def test_function_calls_join_the_assistant_turn_and_outputs_become_tool_messages():
    asked = _decode(
        [
            {"role": "user", "content": "weather in Paris and Rome?"},
            {"role": "assistant", "content": "checking"},
            {"type": "function_call", "call_id": "c1", "name": "weather", "arguments": '{"city":"Paris"}'},
            {"type": "function_call", "call_id": "c2", "name": "weather", "arguments": '{"city":"Rome"}'},
            {"type": "function_call_output", "call_id": "c1", "output": "sunny"},
            {
                "type": "function_call_output",
                "call_id": "c2",
                "output": [{"type": "input_text", "text": "rain"}],
            },
        ]
    )
    assert asked.tool_history
    assert asked.messages[1:] == [
        {
            "role": "assistant",
            "content": "checking",
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "weather", "arguments": '{"city":"Paris"}'},
                },
                {
                    "id": "c2",
                    "type": "function",
                    "function": {"name": "weather", "arguments": '{"city":"Rome"}'},
                },
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "sunny"},
        {"role": "tool", "tool_call_id": "c2", "content": "rain"},
    ]


def test_custom_tool_call_becomes_a_call_with_one_input_string():
    asked = _decode(
        [
            {"role": "user", "content": "run it"},
            {"type": "custom_tool_call", "call_id": "c1", "name": "sql", "input": "select 1"},
            {"type": "custom_tool_call_output", "call_id": "c1", "output": "1"},
        ]
    )
    assert asked.tool_history
    assert asked.messages[1] == {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "sql", "arguments": '{"input":"select 1"}'}}
        ],
    }
    assert asked.messages[2] == {"role": "tool", "tool_call_id": "c1", "content": "1"}


@pytest.mark.parametrize(
    "tools",
    [
        [{"type": "function", "name": "f", "parameters": {"type": "object"}}],
        [{"type": "custom", "name": "sql", "format": {"type": "text"}}],
    ],
    ids=["function", "custom"],
)
def test_the_callers_own_tools_are_counted_as_offered(tools: list[dict[str, Any]]):
    asked = _decode(tools=tools)
    assert asked.tools_offered == 1 and not asked.tool_history


def test_empty_tool_list_is_not_tools():
    assert _decode(tools=[]).tools_offered == 0


@pytest.mark.parametrize(
    "kind",
    ["web_search", "file_search", "code_interpreter", "computer_use_preview", "image_generation", "mcp"],
)
def test_hosted_tools_are_refused(kind: str):
    with pytest.raises(BadRequest, match="hosted tool") as caught:
        _decode(tools=[{"type": kind}])
    assert caught.value.param == "tools"


@pytest.mark.parametrize(
    "item",
    [
        {"type": "web_search_call", "id": "ws_1", "status": "completed"},
        {"type": "computer_call_output", "call_id": "c1", "output": {"type": "computer_screenshot"}},
        {"type": "mcp_list_tools", "id": "m1", "server_label": "x", "tools": []},
    ],
    ids=["web-search-call", "computer-output", "mcp"],
)
def test_hosted_tool_items_are_refused(item: dict[str, Any]):
    with pytest.raises(BadRequest, match="hosted tools"):
        _decode([{"role": "user", "content": "hi"}, item])


@pytest.mark.parametrize(
    "input",
    [
        [{"role": "user", "content": [{"type": ["input_text"], "text": "hi"}]}],
        [{"type": {"function_call_output": 1}, "call_id": "c1", "output": "ok"}],
    ],
    ids=["part", "item"],
)
def test_a_type_that_is_not_a_string_is_refused_naming_the_input(input: list[dict[str, Any]]):
    with pytest.raises(BadRequest, match="type") as caught:
        _decode(input)
    assert caught.value.param == "input"


def test_a_tool_type_that_is_not_a_string_is_refused_naming_the_tools():
    with pytest.raises(BadRequest, match=r"tools\[1\]\.type must be a string") as caught:
        _decode(tools=[{"type": "function", "name": "f"}, {"type": ["function"], "name": "g"}])
    assert caught.value.param == "tools"


@pytest.mark.parametrize(
    "stored",
    [
        {"previous_response_id": "resp_abc"},
        {"conversation": {"id": "conv_abc"}},
        {"prompt": {"id": "pmpt_abc"}},
    ],
    ids=["previous", "conversation", "prompt"],
)
def test_fields_naming_something_stored_are_refused(stored: dict[str, Any]):
    with pytest.raises(BadRequest, match="nothing is stored") as caught:
        _decode(**stored)
    assert caught.value.param == next(iter(stored))


def test_item_reference_is_refused_because_nothing_is_stored():
    with pytest.raises(BadRequest, match="nothing is stored"):
        _decode([{"type": "item_reference", "id": "msg_abc"}])


def test_background_run_is_refused():
    with pytest.raises(BadRequest, match="background"):
        _decode(background=True)


def test_store_true_is_accepted_and_answered_as_not_stored():
    asked = _decode(store=True)
    reply = FORMAT.render(asked, [Seated("p1", "core", PLAN, "all"), Finished(content="x", bench={})])
    assert reply["store"] is False


@pytest.mark.parametrize(
    "body",
    [{}, {"input": ""}, {"input": []}, {"input": 3}, {"input": [{"role": "system", "content": "x"}]}],
    ids=["missing", "empty-text", "empty-list", "number", "only-system"],
)
def test_input_without_anything_to_answer_is_refused(body: dict[str, Any]):
    with pytest.raises(BadRequest, match="input") as caught:
        FORMAT.decode({"model": "bench/core", **body}, caller="local")
    assert caught.value.param == "input"


def test_decode_reads_collection_suffix_nominees_reply_and_options():
    asked = _decode(
        model="bench/core:merged",
        stream=True,
        **{
            "with": ["m4"],
            "bench": {"reply": "all"},
            "max_output_tokens": 100,
            "temperature": 0.2,
            "top_p": 0.9,
            "text": {
                "format": {"type": "json_schema", "name": "r", "schema": {"type": "object"}, "strict": True}
            },
            "reasoning": {"effort": "low"},
            "metadata": {"k": "v"},
            "include": ["reasoning.encrypted_content"],
        },
    )
    assert (asked.model, asked.collection, asked.suffix_reply, asked.reply) == (
        "bench/core:merged",
        "core",
        "merged",
        "all",
    )
    assert asked.nominees == ("m4",) and asked.stream
    assert asked.options == {
        "max_tokens": 100,
        "temperature": 0.2,
        "top_p": 0.9,
        "response_format": {
            "type": "json_schema",
            "json_schema": {"name": "r", "schema": {"type": "object"}, "strict": True},
        },
        "reasoning_effort": "low",
    }


def test_json_object_format_becomes_a_json_response_format():
    assert _decode(text={"format": {"type": "json_object"}}).options == {
        "response_format": {"type": "json_object"}
    }


def test_whole_reply_is_a_completed_response_echoing_the_model_with_the_panels_usage():
    asked = FORMAT.decode({"model": "core:all", "input": "x" * 40}, caller="local")
    finished = Finished(content="y" * 400, bench={"panel": "p1"}, usage=TokenUsage(11, 110))
    reply = FORMAT.render(asked, [Seated("p1", "core", PLAN, "all"), finished])
    assert (reply["id"], reply["object"], reply["status"], reply["model"]) == (
        "resp_p1",
        "response",
        "completed",
        "core:all",
    )
    assert reply["output"] == [
        {
            "type": "message",
            "id": "msg_p1",
            "status": "completed",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "y" * 400, "annotations": []}],
        }
    ]
    assert (
        reply["usage"]["input_tokens"],
        reply["usage"]["output_tokens"],
        reply["usage"]["total_tokens"],
    ) == (
        11,
        110,
        121,
    )
    assert reply["store"] is False and reply["bench"] == {"panel": "p1"} and reply["error"] is None


async def _events(*events: PanelEvent) -> AsyncIterator[PanelEvent]:
    for event in events:
        yield event


async def _streamed(*events: PanelEvent) -> bytes:
    return b"".join([c async for c in FORMAT.stream(_decode(stream=True), _events(*events))])


def _parsed(raw: bytes) -> list[tuple[str, dict[str, Any]]]:
    """Each event's name and data; a keep-alive comment as ("keep-alive", {})."""
    events = []
    for block in raw.decode().split("\n\n"):
        if block == ": keep-alive":
            events.append(("keep-alive", {}))
        elif block:
            head, data = block.split("\n")
            events.append((head.removeprefix("event: "), orjson.loads(data.removeprefix("data: "))))
    return events


async def test_stream_runs_the_whole_lifecycle_with_contiguous_sequence_numbers():
    events = _parsed(
        await _streamed(
            Seated("p1", "core", PLAN, "all", text="heading\n"),
            Heartbeat(),
            MergeDelta("seat\n"),
            Finished(content="heading\nseat\nfooter", bench={"panel": "p1"}, text="footer"),
        )
    )
    assert [name for name, _ in events] == [
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.content_part.added",
        "response.output_text.delta",
        "keep-alive",
        "response.output_text.delta",
        "response.output_text.delta",
        "response.output_text.done",
        "response.content_part.done",
        "response.output_item.done",
        "response.completed",
    ]
    typed = [data for name, data in events if name != "keep-alive"]
    assert all(data["type"] == name for name, data in events if name != "keep-alive")
    assert [data["sequence_number"] for data in typed] == list(range(len(typed)))
    assert [d["delta"] for d in typed if d["type"] == "response.output_text.delta"] == [
        "heading\n",
        "seat\n",
        "footer",
    ]
    assert typed[0]["response"]["id"] == typed[-1]["response"]["id"] == "resp_p1"
    assert typed[0]["response"]["status"] == "in_progress" and typed[0]["response"]["output"] == []
    assert typed[-4]["text"] == "heading\nseat\nfooter"
    completed = typed[-1]["response"]
    assert completed["status"] == "completed" and completed["bench"] == {"panel": "p1"}
    assert completed["output"][0]["content"][0]["text"] == "heading\nseat\nfooter"
    assert all("bench" not in d.get("response", {}) for d in typed[:-1])


async def test_error_after_the_start_is_an_error_event_then_response_failed():
    events = _parsed(
        await _streamed(Seated("p1", "core", PLAN, "all", text="heading\n"), Failed(503, "upstream gone"))
    )
    assert [name for name, _ in events][-2:] == ["error", "response.failed"]
    error, failed = events[-2][1], events[-1][1]
    assert (error["code"], error["message"], error["sequence_number"]) == ("503", "upstream gone", 5)
    assert error["error"] == {
        "message": "upstream gone",
        "type": "server_error",
        "param": None,
        "code": "503",
    }
    assert failed["sequence_number"] == 6 and failed["response"]["status"] == "failed"
    assert failed["response"]["error"] == {"code": "server_error", "message": "upstream gone"}


def _client_reading(raw: bytes) -> openai.OpenAI:
    """The official client, reading `raw` as the body of any request."""
    transport = httpx2.MockTransport(
        lambda _: httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=raw)
    )
    return openai.OpenAI(
        base_url="http://gateway.invalid/v1",
        api_key="x",
        max_retries=0,
        http_client=httpx2.Client(transport=transport),
    )


async def test_sdk_stream_helper_rebuilds_the_response_with_bench():
    raw = await _streamed(
        Seated("p1", "core", PLAN, "all", text="heading\n"),
        Finished(content="heading\nfooter", bench={"panel": "p1"}, text="footer"),
    )
    with _client_reading(raw) as client, client.responses.stream(model="bench/core", input="hi") as stream:
        final = stream.get_final_response()
    assert final.id == "resp_p1" and final.output_text == "heading\nfooter"
    assert final.model_extra["bench"] == {"panel": "p1"}


async def test_sdk_raises_on_an_error_after_the_start():
    raw = await _streamed(Seated("p1", "core", PLAN, "all", text="heading\n"), Failed(503, "upstream gone"))
    with (
        _client_reading(raw) as client,
        pytest.raises(openai.APIError, match="upstream gone"),
        client.responses.stream(model="bench/core", input="hi") as stream,
    ):
        stream.until_done()


@pytest.mark.parametrize(
    ("error", "kind", "code"),
    [
        (BadRequest("why", param="input"), "invalid_request_error", "400"),
        (NotFound("why", param="model"), "invalid_request_error", "404"),
        (GatewayError("why"), "server_error", "500"),
    ],
)
def test_error_body_says_whose_fault_it_is_and_the_status(error: GatewayError, kind: str, code: str):
    assert FORMAT.error_body(error) == {
        "error": {"message": "why", "type": kind, "param": error.param, "code": code}
    }
