"""OpenAI Responses route mode on its own: the chat body a request becomes, and the replies a turn makes."""

from __future__ import annotations

from typing import Any

import openai
import orjson
import pytest
from openai.types.responses import Response

from panelgate.core.errors import BadRequest
from panelgate.core.route import RouteBroken, RouteEvent, RouteRequest
from panelgate.core.types import Heartbeat
from panelgate.formats.responses.panel import OpenAIResponses
from panelgate.formats.responses.route import ResponsesRoute
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

ROUTE = ResponsesRoute()
PIXEL = "data:image/png;base64,iVBORw0KGgo="
SHELL = {
    "type": "function",
    "name": "shell",
    "description": "Run a command",
    "parameters": {"type": "object", "properties": {"cmd": {"type": "string"}}, "required": ["cmd"]},
    "strict": False,
}
PATCH = {
    "type": "custom",
    "name": "apply_patch",
    "description": "Edit files",
    "format": {"type": "grammar", "syntax": "lark", "definition": "start: /.+/"},
}


def _decode(input: Any = "hi", **body: Any) -> RouteRequest:
    return ROUTE.decode_route({"model": "bench/core:route", "input": input, **body}, caller="local")


# ---- streams and what reads them ------------------------------------------------------


async def _streamed(events: list[RouteEvent], request: RouteRequest | None = None) -> bytes:
    asked = request or _decode(stream=True, tools=[SHELL, PATCH])
    return b"".join([chunk async for chunk in ROUTE.stream_route(asked, feed(events))])


def _check_items(events: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    """Items are added one at a time at output indices 0, 1, ..., and each is done before the next;
    sequence numbers run from 0 without a gap. Returns the done items in order."""
    typed = [data for name, data in events if name != "keep-alive"]
    assert [data["sequence_number"] for data in typed] == list(range(len(typed)))
    done: list[dict[str, Any]] = []
    open_index: int | None = None
    for data in typed:
        if data["type"] == "response.output_item.added":
            assert open_index is None and data["output_index"] == len(done)
            open_index = data["output_index"]
        elif data["type"] == "response.output_item.done":
            assert data["output_index"] == open_index
            open_index = None
            done.append(data["item"])
        elif "output_index" in data:
            assert data["output_index"] == open_index, data
    assert open_index is None
    return done


def _client_reading(raw: bytes) -> openai.OpenAI:
    return openai.OpenAI(
        base_url="http://gateway.invalid/v1", api_key="x", max_retries=0, http_client=sse_http_client(raw)
    )


# ---- reading a request ----------------------------------------------------------------


def test_a_whole_tool_loop_becomes_one_openai_body():
    asked = _decode(
        [
            {"role": "user", "content": [{"type": "input_text", "text": "list files, then fix the bug"}]},
            {"type": "reasoning", "id": "rs_1", "summary": []},
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "Looking."}],
            },
            {"type": "function_call", "call_id": "c1", "name": "shell", "arguments": '{"cmd":"ls"}'},
            {"type": "function_call_output", "call_id": "c1", "output": "a.py"},
            {"type": "custom_tool_call", "call_id": "c2", "name": "apply_patch", "input": "*** Begin Patch"},
            {"type": "custom_tool_call_output", "call_id": "c2", "output": "Done!"},
        ],
        instructions="You are a coding agent.",
        tools=[SHELL, PATCH],
        tool_choice="auto",
        parallel_tool_calls=False,
        max_output_tokens=512,
        temperature=0.1,
        store=False,
        include=["reasoning.encrypted_content"],
        prompt_cache_key="k",
        stream=True,
    )
    assert asked.body == {
        "messages": [
            {"role": "system", "content": "You are a coding agent."},
            {"role": "user", "content": "list files, then fix the bug"},
            {
                "role": "assistant",
                "content": "Looking.",
                "tool_calls": [
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {"name": "shell", "arguments": '{"cmd":"ls"}'},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "c1", "content": "a.py"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "c2",
                        "type": "function",
                        "function": {"name": "apply_patch", "arguments": '{"input":"*** Begin Patch"}'},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "c2", "content": "Done!"},
        ],
        "max_tokens": 512,
        "temperature": 0.1,
        "tools": [
            {
                "type": "function",
                "function": {
                    "name": "shell",
                    "description": "Run a command",
                    "parameters": SHELL["parameters"],
                    "strict": False,
                },
            },
            {
                "type": "function",
                "function": {
                    "name": "apply_patch",
                    "description": "Edit files",
                    "parameters": {
                        "type": "object",
                        "properties": {
                            "input": {
                                "type": "string",
                                "description": "The tool's whole input, as text matching this lark grammar:\n"
                                "start: /.+/",
                            }
                        },
                        "required": ["input"],
                        "additionalProperties": False,
                    },
                },
            },
        ],
        "parallel_tool_calls": False,
        "tool_choice": "auto",
    }
    assert asked.stream and (asked.collection, asked.suffix_reply) == ("core", "route")


def test_images_in_tool_outputs_follow_in_a_user_message_after_the_tool_messages():
    asked = _decode(
        [
            {"role": "user", "content": "look at both"},
            {"type": "function_call", "call_id": "c1", "name": "view", "arguments": "{}"},
            {"type": "function_call", "call_id": "c2", "name": "view", "arguments": "{}"},
            {
                "type": "function_call_output",
                "call_id": "c1",
                "output": [{"type": "input_image", "image_url": PIXEL}],
            },
            {"type": "function_call_output", "call_id": "c2", "output": "no image"},
        ]
    )
    assert [m["role"] for m in asked.messages] == ["user", "assistant", "tool", "tool", "user"]
    assert "image" in asked.messages[2]["content"]
    assert asked.messages[4] == {
        "role": "user",
        "content": [{"type": "image_url", "image_url": {"url": PIXEL}}],
    }


def test_namespace_tools_are_flattened_into_their_functions():
    space = {
        "type": "namespace",
        "name": "github",
        "description": "GitHub tools",
        "tools": [{"type": "function", "name": "open_issue", "parameters": {"type": "object"}}],
    }
    body = _decode(tools=[SHELL, space]).body
    assert [tool["function"]["name"] for tool in body["tools"]] == ["shell", "open_issue"]


@pytest.mark.parametrize(
    ("choice", "expected"),
    [
        ("required", "required"),
        ("none", "none"),
        ({"type": "function", "name": "shell"}, {"type": "function", "function": {"name": "shell"}}),
        (
            {"type": "custom", "name": "apply_patch"},
            {"type": "function", "function": {"name": "apply_patch"}},
        ),
    ],
    ids=["required", "none", "function", "custom"],
)
def test_tool_choice_becomes_the_chat_tool_choice(choice: Any, expected: Any):
    assert _decode(tools=[SHELL, PATCH], tool_choice=choice).body["tool_choice"] == expected


def test_text_format_and_reasoning_effort_pass_on_under_their_chat_names():
    schema = {"type": "object", "properties": {}}
    body = _decode(
        text={"format": {"type": "json_schema", "name": "answer", "schema": schema}, "verbosity": "low"},
        reasoning={"effort": "high", "summary": "auto"},
        top_p=0.5,
    ).body
    assert body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "answer", "schema": schema},
    }
    assert (body["reasoning_effort"], body["top_p"]) == ("high", 0.5)


@pytest.mark.parametrize(
    ("extra", "said"),
    [
        ({"tools": [{"type": "web_search"}]}, "hosted tool"),
        ({"tools": [SHELL], "tool_choice": {"type": "file_search"}}, "hosted tool"),
        (
            {"tools": [SHELL], "tool_choice": {"type": "allowed_tools", "mode": "auto", "tools": []}},
            "allowed_tools",
        ),
        ({"tools": [SHELL], "tool_choice": {"type": "function", "name": "rm"}}, "not in `tools`"),
        ({"tool_choice": "required"}, "`tools` is empty"),
        ({"tools": [SHELL, SHELL]}, "named `shell`"),
        ({"tools": [{"type": "custom", "name": "x", "format": {"type": "grammar"}}]}, "definition"),
        ({"tools": [{"type": "function", "name": "f", "parameters": "object"}]}, "JSON schema"),
        ({"previous_response_id": "resp_1"}, "stored"),
        ({"background": True}, "background"),
    ],
    ids=[
        "hosted-tool",
        "hosted-choice",
        "allowed-tools",
        "unknown-tool",
        "required-without-tools",
        "duplicate-name",
        "grammar-without-definition",
        "bad-parameters",
        "previous-response",
        "background",
    ],
)
def test_what_a_member_cannot_be_given_is_refused(extra: dict[str, Any], said: str):
    with pytest.raises(BadRequest, match=said):
        _decode(**extra)


def test_refusals_use_the_responses_error_shape():
    with pytest.raises(BadRequest) as caught:
        _decode(tools=[{"type": "code_interpreter", "container": {"type": "auto"}}])
    error = OpenAIResponses().error_body(caught.value)["error"]
    assert (error["type"], error["param"], error["code"]) == ("invalid_request_error", "tools", "400")


# ---- the whole reply ------------------------------------------------------------------


def test_whole_reply_has_a_message_then_an_item_per_call_in_the_callers_words():
    events = turn(
        text_chunk("Patching."),
        call_chunk(0, "call_a", "shell", '{"cmd":'),
        arguments_chunk(0, '"ls"}'),
        call_chunk(1, "call_b", "apply_patch", '{"input": "*** Begin Patch\\n"}'),
        finish_chunk("tool_calls", prompt_tokens=40, completion_tokens=12),
    )
    reply = ROUTE.render_route(_decode(tools=[SHELL, PATCH]), events)
    assert reply["id"] == "resp_c1.1" and reply["status"] == "completed" and reply["bench"] == BENCH
    assert reply["output"] == [
        {
            "type": "message",
            "id": "msg_c1.1_0",
            "status": "completed",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "Patching.", "annotations": []}],
        },
        {
            "type": "function_call",
            "id": "fc_c1.1_1",
            "call_id": "call_a",
            "name": "shell",
            "arguments": '{"cmd":"ls"}',
            "status": "completed",
        },
        {
            "type": "custom_tool_call",
            "id": "ctc_c1.1_2",
            "call_id": "call_b",
            "name": "apply_patch",
            "input": "*** Begin Patch\n",
        },
    ]
    assert reply["usage"]["input_tokens"] == 40 and reply["usage"]["total_tokens"] == 52
    response = Response.model_validate(reply)
    assert response.output_text == "Patching." and (response.model_extra or {})["bench"] == BENCH


def test_a_reply_cut_by_the_length_limit_is_incomplete():
    reply = ROUTE.render_route(_decode(), turn(text_chunk("and then"), finish_chunk("length")))
    assert reply["status"] == "incomplete"
    assert reply["incomplete_details"] == {"reason": "max_output_tokens"}


def test_a_custom_call_with_arguments_of_another_shape_gives_them_as_its_input():
    reply = ROUTE.render_route(
        _decode(tools=[PATCH]),
        turn(call_chunk(0, "c", "apply_patch", '{"patch": "x"}'), finish_chunk("tool_calls")),
    )
    assert reply["output"][0]["input"] == '{"patch": "x"}'


def test_calls_to_namespaced_tools_name_their_namespace():
    space = {
        "type": "namespace",
        "name": "github",
        "description": "GitHub",
        "tools": [{**SHELL, "name": "gh"}],
    }
    reply = ROUTE.render_route(
        _decode(tools=[space]), turn(call_chunk(0, "c", "gh", "{}"), finish_chunk("tool_calls"))
    )
    assert reply["output"][0]["namespace"] == "github"


# ---- the stream -----------------------------------------------------------------------


async def test_stream_relays_argument_deltas_as_they_arrive_and_the_sdk_rebuilds_the_response():
    pieces = ['{"cm', 'd": "l', 's -la"}']
    events = turn(
        thought_chunk("hmm"),
        text_chunk("Listing "),
        text_chunk("files."),
        call_chunk(0, "call_a", "shell", pieces[0]),
        arguments_chunk(0, pieces[1]),
        arguments_chunk(0, pieces[2]),
        call_chunk(1, "call_b", "apply_patch", '{"input":"*** Begin Patch"}'),
        finish_chunk("tool_calls", prompt_tokens=40, completion_tokens=12),
    )
    raw = await _streamed(events)
    parsed = named_events(raw)
    assert [name for name, _ in parsed][:2] == ["response.created", "response.in_progress"]
    assert parsed[-1][0] == "response.completed"
    deltas = [d["delta"] for n, d in parsed if n == "response.function_call_arguments.delta"]
    assert deltas == pieces
    items = _check_items(parsed)
    assert [item["type"] for item in items] == ["message", "function_call", "custom_tool_call"]
    assert "reasoning" not in [name.split(".")[1] for name, _ in parsed if "." in name]
    completed = parsed[-1][1]["response"]
    assert completed["output"] == items and completed["bench"] == BENCH

    with (
        _client_reading(raw) as client,
        client.responses.stream(model="bench/core:route", input="hi") as stream,
    ):
        final = stream.get_final_response()
    assert final.id == "resp_c1.1" and final.output_text == "Listing files."
    call, patch = final.output[1], final.output[2]
    assert call.type == "function_call" and orjson.loads(call.arguments) == {"cmd": "ls -la"}
    assert patch.type == "custom_tool_call" and patch.input == "*** Begin Patch"
    assert final.model_extra["bench"] == BENCH and final.usage is not None and final.usage.total_tokens == 52


async def test_custom_tool_input_streams_decoded_as_it_arrives():
    pieces = ['{"input": "line 1\\nli', "ne 2 \\u00e9 \\ud83d", '\\ude00 \\"end\\"', '"}']
    events = turn(
        call_chunk(0, "call_b", "apply_patch", pieces[0]),
        *[arguments_chunk(0, piece) for piece in pieces[1:]],
        finish_chunk("tool_calls"),
    )
    parsed = named_events(await _streamed(events))
    deltas = [d["delta"] for n, d in parsed if n == "response.custom_tool_call_input.delta"]
    assert deltas == ["line 1\nli", "ne 2 é ", '😀 "end"']
    done = next(d for n, d in parsed if n == "response.custom_tool_call_input.done")
    assert done["input"] == 'line 1\nline 2 é 😀 "end"'


async def test_custom_tool_arguments_of_another_shape_arrive_whole_at_the_end():
    events = turn(
        call_chunk(0, "call_b", "apply_patch", '{"patch": '),
        arguments_chunk(0, '"x"}'),
        finish_chunk("tool_calls"),
    )
    parsed = named_events(await _streamed(events))
    deltas = [d["delta"] for n, d in parsed if n == "response.custom_tool_call_input.delta"]
    assert deltas == ['{"patch": "x"}']


async def test_text_after_a_tool_call_is_a_new_message_item():
    events = turn(
        call_chunk(0, "call_a", "shell", "{}"), text_chunk("and "), text_chunk("more"), finish_chunk("stop")
    )
    items = _check_items(named_events(await _streamed(events)))
    assert [item["type"] for item in items] == ["function_call", "message"]
    assert items[1]["content"][0]["text"] == "and more" and items[1]["id"] == "msg_c1.1_1"


async def test_a_stream_cut_by_the_length_limit_ends_with_response_incomplete():
    parsed = named_events(await _streamed(turn(text_chunk("and then"), finish_chunk("length"))))
    name, data = parsed[-1]
    assert name == "response.incomplete"
    assert data["response"]["status"] == "incomplete" and data["response"]["bench"] == BENCH


async def test_heartbeats_are_keep_alive_comments():
    events = turn(text_chunk("hi"), finish_chunk("stop"))
    parsed = named_events(await _streamed([Heartbeat(), events[0], Heartbeat(), *events[1:]]))
    assert [name for name, _ in parsed][:4] == [
        "keep-alive",
        "response.created",
        "response.in_progress",
        "keep-alive",
    ]


async def test_a_broken_turn_ends_with_an_error_event_then_response_failed_that_the_sdk_raises():
    events: list[RouteEvent] = [
        *turn(text_chunk("partial"))[:-1],
        RouteBroken("the member went away", bench=BENCH),
    ]
    raw = await _streamed(events)
    parsed = named_events(raw)
    assert [name for name, _ in parsed][-2:] == ["error", "response.failed"]
    assert parsed[-2][1]["error"]["message"] == "the member went away"
    assert parsed[-1][1]["response"]["status"] == "failed"
    with (
        _client_reading(raw) as client,
        pytest.raises(openai.APIError, match="the member went away"),
        client.responses.stream(model="bench/core:route", input="hi") as stream,
    ):
        stream.until_done()
