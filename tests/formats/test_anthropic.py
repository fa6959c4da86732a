"""The Anthropic Messages adapter on its own: what it reads from a body and what it writes for events."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import anthropic
import httpx2
import orjson
import pytest

from panelgate.core.errors import BadRequest, GatewayError, error_for_status
from panelgate.core.types import Failed, Finished, Heartbeat, PanelEvent, Seated, SeatPlan, TokenUsage
from panelgate.formats.anthropic.panel import AnthropicMessages

FORMAT = AnthropicMessages()
PLAN = SeatPlan(seats=(), skipped=(), shape="general", shape_by="default", members=0, explorers=0)


def _decode(*content: Any, **extra: Any) -> Any:
    messages = (
        [{"role": "user", "content": list(content)}] if content else [{"role": "user", "content": "hi"}]
    )
    return FORMAT.decode({"model": "bench/core", "messages": messages, **extra}, caller="local")


def test_system_text_blocks_become_one_system_message():
    asked = _decode(system=[{"type": "text", "text": "be brief"}, {"type": "text", "text": "be kind"}])
    assert asked.messages[0] == {"role": "system", "content": "be brief\nbe kind"}
    assert asked.messages[1] == {"role": "user", "content": "hi"}


def test_system_string_becomes_a_system_message():
    assert _decode(system="be brief").messages[0] == {"role": "system", "content": "be brief"}


def test_decode_reads_collection_suffix_nominees_reply_and_options():
    asked = FORMAT.decode(
        {
            "model": "bench/core:merged",
            "messages": [{"role": "user", "content": "hi"}],
            "with": ["m4"],
            "bench": {"reply": "all"},
            "max_tokens": 100,
            "temperature": 0.2,
            "stop_sequences": ["END"],
            "top_k": 5,
            "metadata": {"user_id": "u"},
            "thinking": {"type": "enabled", "budget_tokens": 1024},
        },
        caller="local",
    )
    assert (asked.model, asked.collection, asked.suffix_reply, asked.reply) == (
        "bench/core:merged",
        "core",
        "merged",
        "all",
    )
    assert asked.nominees == ("m4",)
    assert asked.options == {"max_tokens": 100, "temperature": 0.2, "stop": ["END"]}
    assert not asked.tools_offered and not asked.tool_history


def test_base64_image_block_becomes_a_data_url_part():
    asked = _decode(
        {"type": "text", "text": "what is this?"},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}},
    )
    assert asked.messages[0]["content"] == [
        {"type": "text", "text": "what is this?"},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}},
    ]


def test_url_image_block_becomes_its_url():
    asked = _decode({"type": "image", "source": {"type": "url", "url": "https://example.org/a.png"}})
    assert asked.messages[0]["content"] == [
        {"type": "image_url", "image_url": {"url": "https://example.org/a.png"}}
    ]


@pytest.mark.parametrize(
    ("source", "said"),
    [
        ({"type": "file", "file_id": "file_abc"}, "uploaded file"),
        ({"type": "url", "url": "ftp://host/a.png"}, "http"),
        ({"type": "base64", "media_type": "application/pdf", "data": "JVBERi0="}, "image/"),
        ({"type": "text", "data": "x"}, "base64"),
    ],
)
def test_other_image_sources_are_refused(source: dict[str, Any], said: str):
    with pytest.raises(BadRequest, match=said):
        _decode({"type": "image", "source": source})


def test_pdf_document_block_is_refused():
    document = {
        "type": "document",
        "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBERi0="},
    }
    with pytest.raises(BadRequest, match="PDF"):
        _decode({"type": "text", "text": "summarise"}, document)


@pytest.mark.parametrize(
    "block",
    [
        {"type": "server_tool_use", "id": "s1", "name": "web_search", "input": {"query": "x"}},
        {"type": "web_search_tool_result", "tool_use_id": "s1", "content": []},
    ],
)
def test_server_tool_blocks_are_refused(block: dict[str, Any]):
    with pytest.raises(BadRequest, match="server tools"):
        FORMAT.decode(
            {"model": "bench/core", "messages": [{"role": "assistant", "content": [block]}]}, caller="local"
        )


@pytest.mark.parametrize(
    "extra",
    [
        {"tools": [{"type": "web_search_20250305", "name": "web_search"}]},
        {"mcp_servers": [{"type": "url", "url": "https://mcp.example.org", "name": "x"}]},
    ],
)
def test_vendor_hosted_tools_are_refused(extra: dict[str, Any]):
    with pytest.raises(BadRequest, match="server tools"):
        _decode(**extra)


def test_custom_tools_are_counted_as_offered():
    asked = _decode(tools=[{"name": "f", "input_schema": {"type": "object"}}])
    assert asked.tools_offered == 1 and not asked.tool_history


def test_empty_tool_list_is_not_tools():
    assert _decode(tools=[]).tools_offered == 0


def test_tool_history_becomes_tool_calls_and_tool_messages_in_order():
    pixel = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBO"}}
    asked = FORMAT.decode(
        {
            "model": "bench/core",
            "messages": [
                {"role": "user", "content": "weather?"},
                {
                    "role": "assistant",
                    "content": [
                        {"type": "text", "text": "checking"},
                        {"type": "tool_use", "id": "t1", "name": "weather", "input": {"city": "Oslo"}},
                    ],
                },
                {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": "t1",
                            "is_error": True,
                            "content": [{"type": "text", "text": "no data"}, pixel],
                        },
                        {"type": "text", "text": "and now?"},
                    ],
                },
            ],
        },
        caller="local",
    )
    assert asked.tool_history
    call = asked.messages[1]["tool_calls"][0]
    assert call["id"] == "t1" and call["function"]["name"] == "weather"
    assert orjson.loads(call["function"]["arguments"]) == {"city": "Oslo"}
    assert asked.messages[2] == {"role": "tool", "tool_call_id": "t1", "content": "Error: no data"}
    assert asked.messages[3]["role"] == "user"
    assert [p["type"] for p in asked.messages[3]["content"]] == ["image_url", "text"]


def test_thinking_blocks_are_dropped():
    asked = FORMAT.decode(
        {
            "model": "bench/core",
            "messages": [
                {"role": "user", "content": "one"},
                {
                    "role": "assistant",
                    "content": [
                        {"type": "thinking", "thinking": "hmm", "signature": "s"},
                        {"type": "redacted_thinking", "data": "xx"},
                        {"type": "text", "text": "two"},
                    ],
                },
                {"role": "user", "content": "three"},
            ],
        },
        caller="local",
    )
    assert asked.messages[1] == {"role": "assistant", "content": "two"}


@pytest.mark.parametrize("role", ["tool", "developer"])
def test_roles_other_than_user_assistant_and_system_are_refused(role: str):
    with pytest.raises(BadRequest, match="user, assistant or system"):
        FORMAT.decode({"model": "bench/core", "messages": [{"role": role, "content": "x"}]}, caller="local")


def test_system_entries_inside_messages_join_the_system_text_of_a_panel():
    messages = [
        {"role": "user", "content": "hi"},
        {"role": "system", "content": [{"type": "text", "text": "agent types"}]},
        {"role": "assistant", "content": "hello"},
        {"role": "system", "content": "be kind"},
        {"role": "user", "content": "more"},
    ]
    asked = FORMAT.decode({"model": "bench/core", "system": "be brief", "messages": messages}, caller="local")
    assert asked.messages == [
        {"role": "system", "content": "be brief\n\nagent types\n\nbe kind"},
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "hello"},
        {"role": "user", "content": "more"},
    ]


def test_a_system_entry_alone_is_nothing_to_answer():
    with pytest.raises(BadRequest, match="nothing to answer"):
        FORMAT.decode(
            {"model": "bench/core", "messages": [{"role": "system", "content": "x"}]}, caller="local"
        )


@pytest.mark.parametrize("role", [[], {}], ids=["list", "object"])
def test_a_role_that_is_not_a_string_is_refused_naming_the_messages(role: object):
    with pytest.raises(BadRequest, match="user, assistant or system") as caught:
        FORMAT.decode({"model": "bench/core", "messages": [{"role": role, "content": "x"}]}, caller="local")
    assert caught.value.param == "messages"


@pytest.mark.parametrize("kind", [["text"], {"type": "thinking"}], ids=["list", "object"])
def test_a_block_type_that_is_not_a_string_is_refused_naming_the_messages(kind: object):
    with pytest.raises(BadRequest, match="cannot pass on") as caught:
        _decode({"type": kind, "text": "hi"})
    assert caught.value.param == "messages"


@pytest.mark.parametrize(
    "messages",
    [
        [{"role": "user", "content": []}],
        [{"role": "assistant", "content": [{"type": "thinking", "thinking": "hm", "signature": "s"}]}],
    ],
    ids=["empty-content", "only-thinking"],
)
def test_messages_with_nothing_to_answer_are_refused(messages: list[dict[str, Any]]):
    """They read as no message at all, and a panel asked its seats with an empty conversation."""
    body = {"model": "bench/core", "system": "be brief", "messages": messages}
    with pytest.raises(BadRequest, match="nothing to answer") as caught:
        FORMAT.decode(body, caller="local")
    assert caught.value.param == "messages"


def test_count_tokens_adds_a_flat_amount_per_image():
    pixel = {"type": "image", "source": {"type": "url", "url": "https://example.org/a.png"}}
    with_image = FORMAT.count_tokens(_decode({"type": "text", "text": "x" * 40}, pixel))
    text_only = FORMAT.count_tokens(_decode({"type": "text", "text": "x" * 40}))
    assert text_only == {"input_tokens": 11}
    assert with_image == {"input_tokens": 11 + 2500}


@pytest.mark.parametrize(
    ("status", "kind"),
    [
        (400, "invalid_request_error"),
        (401, "authentication_error"),
        (403, "permission_error"),
        (404, "not_found_error"),
        (413, "request_too_large"),
        (429, "rate_limit_error"),
        (503, "overloaded_error"),
        (500, "api_error"),
        (502, "api_error"),
    ],
)
def test_error_body_names_the_anthropic_error_type_for_the_status(status: int, kind: str):
    error = error_for_status(status, "why")
    error.status = status
    assert FORMAT.error_body(error) == {"type": "error", "error": {"type": kind, "message": "why"}}


async def _events(*events: PanelEvent) -> AsyncIterator[PanelEvent]:
    for event in events:
        yield event


def _parsed(chunks: list[bytes]) -> list[tuple[str, dict[str, Any]]]:
    events = []
    for chunk in chunks:
        head, data = chunk.decode().strip().split("\n")
        events.append((head.removeprefix("event: "), orjson.loads(data.removeprefix("data: "))))
    return events


async def _streamed(*events: PanelEvent) -> list[bytes]:
    return [c async for c in FORMAT.stream(_decode(), _events(*events))]


async def test_stream_follows_the_messages_lifecycle_with_bench_on_message_delta():
    chunks = await _streamed(
        Seated("p1", "core", PLAN, "all", text="heading\n"),
        Heartbeat(),
        Finished(content="heading\nfooter", bench={"panel": "p1"}, text="footer"),
    )
    events = _parsed(chunks)
    assert [name for name, _ in events] == [
        "message_start",
        "content_block_start",
        "content_block_delta",
        "ping",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]
    assert all(data["type"] == name for name, data in events)
    assert events[0][1]["message"]["id"] == "msg_p1" and events[0][1]["message"]["model"] == "bench/core"
    assert events[6][1]["delta"]["stop_reason"] == "end_turn" and events[6][1]["bench"] == {"panel": "p1"}


async def test_error_after_the_start_is_an_error_event_that_ends_the_stream():
    events = _parsed(await _streamed(Seated("p1", "core", PLAN, "all"), Failed(500, "the panel broke")))
    assert events[-1] == (
        "error",
        {"type": "error", "error": {"type": "api_error", "message": "the panel broke"}},
    )
    assert "message_stop" not in [name for name, _ in events]


async def test_sdk_raises_on_an_error_after_the_start():
    chunks = await _streamed(
        Seated("p1", "core", PLAN, "all", text="heading\n"), Failed(503, "upstream gone")
    )
    transport = httpx2.MockTransport(
        lambda _: httpx2.Response(
            200, headers={"content-type": "text/event-stream"}, content=b"".join(chunks)
        )
    )
    client = anthropic.Anthropic(
        base_url="http://gateway.invalid",
        api_key="x",
        max_retries=0,
        http_client=httpx2.Client(transport=transport),
    )
    with (
        pytest.raises(anthropic.APIStatusError, match="upstream gone"),
        client.messages.stream(
            model="bench/core", max_tokens=10, messages=[{"role": "user", "content": "hi"}]
        ) as stream,
    ):
        stream.until_done()
    client.close()


def test_whole_reply_echoes_the_model_as_sent_with_the_panels_usage():
    asked = FORMAT.decode(
        {"model": "core:all", "messages": [{"role": "user", "content": "x" * 40}]}, caller="local"
    )
    finished = Finished(content="y" * 400, bench={"panel": "p1"}, usage=TokenUsage(11, 110))
    reply = FORMAT.render(asked, [Seated("p1", "core", PLAN, "all"), finished])
    assert reply["model"] == "core:all" and reply["id"] == "msg_p1"
    assert reply["content"] == [{"type": "text", "text": "y" * 400}]
    assert reply["usage"] == {"input_tokens": 11, "output_tokens": 110}
    assert reply["bench"] == {"panel": "p1"} and reply["stop_reason"] == "end_turn"


def test_error_body_of_a_gateway_failure_is_api_error():
    assert FORMAT.error_body(GatewayError("boom"))["error"]["type"] == "api_error"
