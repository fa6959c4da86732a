"""The OpenAI chat adapter on its own: what it reads from a body and what it writes for events."""

from __future__ import annotations

from collections.abc import AsyncIterator

import orjson
import pytest

from panelgate.core.errors import BadRequest
from panelgate.core.types import Failed, Heartbeat, PanelEvent, Seated, SeatPlan
from panelgate.formats.openai_chat.panel import OpenAIChat

FORMAT = OpenAIChat()
PLAN = SeatPlan(seats=(), skipped=(), shape="general", shape_by="default", members=0, explorers=0)


def test_decode_reads_collection_suffix_nominees_and_reply():
    asked = FORMAT.decode(
        {
            "model": "bench/core:merged",
            "messages": [{"role": "user", "content": "hi"}],
            "with": ["m4"],
            "bench": {"reply": "all"},
            "temperature": 0.2,
        },
        caller="local",
    )
    assert (asked.collection, asked.suffix_reply, asked.reply) == ("core", "merged", "all")
    assert asked.nominees == ("m4",) and asked.options == {"temperature": 0.2}
    assert not asked.tools_offered and not asked.tool_history


def test_developer_messages_become_system_messages():
    asked = FORMAT.decode(
        {
            "model": "bench/core",
            "messages": [{"role": "developer", "content": "be brief"}, {"role": "user", "content": "hi"}],
        },
        caller="local",
    )
    assert asked.messages[0] == {"role": "system", "content": "be brief"}


def test_empty_tool_list_is_not_tools():
    asked = FORMAT.decode(
        {"model": "bench/core", "messages": [{"role": "user", "content": "hi"}], "tools": []}, caller="local"
    )
    assert not asked.tools_offered and not asked.tool_history


@pytest.mark.parametrize("url", ["ftp://host/a.png", "file:///etc/passwd", "data:text/plain;base64,aGk="])
def test_images_must_be_http_or_data_image_urls(url: str):
    body = {
        "model": "bench/core",
        "messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": url}}]}],
    }
    with pytest.raises(BadRequest):
        FORMAT.decode(body, caller="local")


def test_function_role_is_refused():
    with pytest.raises(BadRequest, match="route"):
        FORMAT.decode(
            {"model": "bench/core", "messages": [{"role": "function", "name": "f", "content": "1"}]},
            caller="local",
        )


@pytest.mark.parametrize("role", [[], {}], ids=["list", "object"])
def test_a_role_that_is_not_a_string_is_refused_naming_the_messages(role: object):
    body = {"model": "bench/core", "messages": [{"role": role, "content": "hi"}]}
    with pytest.raises(BadRequest, match="unknown role") as caught:
        FORMAT.decode(body, caller="local")
    assert caught.value.param == "messages"


async def _events(*events: PanelEvent) -> AsyncIterator[PanelEvent]:
    for event in events:
        yield event


async def test_error_after_the_start_is_an_error_chunk_then_done():
    asked = FORMAT.decode(
        {"model": "bench/core", "messages": [{"role": "user", "content": "hi"}]}, caller="x"
    )
    chunks = [
        c
        async for c in FORMAT.stream(
            asked,
            _events(
                Seated(panel="p1", collection="core", plan=PLAN, reply="all", text="heading"),
                Heartbeat(),
                Failed(500, "the database went away"),
            ),
        )
    ]
    assert chunks[1] == b": keep-alive\n\n"
    error = orjson.loads(chunks[2].removeprefix(b"data: "))
    assert error["error"]["message"] == "the database went away" and error["error"]["code"] == "500"
    assert chunks[-1] == b"data: [DONE]\n\n"
