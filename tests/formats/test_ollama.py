"""The Ollama adapter on its own: what it reads from a body and what it writes for events."""

from __future__ import annotations

import base64
from collections.abc import AsyncIterator

import orjson
import pytest

from panelgate.core.errors import BadRequest
from panelgate.core.types import (
    Failed,
    Finished,
    Heartbeat,
    PanelEvent,
    PanelTimes,
    SeatDone,
    Seated,
    SeatPlan,
    SeatResult,
    TokenUsage,
)
from panelgate.formats.ollama.panel import OllamaChat, OllamaGenerate

CHAT = OllamaChat()
GENERATE = OllamaGenerate()
PLAN = SeatPlan(seats=(), skipped=(), shape="general", shape_by="default", members=0, explorers=0)
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def _chat(**body: object) -> dict[str, object]:
    return {"model": "bench/core", "messages": [{"role": "user", "content": "hi"}], **body}


def test_chat_streams_unless_told_not_to():
    assert CHAT.decode(_chat(), caller="local").stream is True
    assert CHAT.decode(_chat(stream=False), caller="local").stream is False


def test_decode_reads_collection_suffix_nominees_and_reply():
    asked = CHAT.decode(
        _chat(model="bench/core:merged", **{"with": ["m4"]}, bench={"reply": "all"}), caller="local"
    )
    assert (asked.collection, asked.suffix_reply, asked.reply, asked.nominees) == (
        "core",
        "merged",
        "all",
        ("m4",),
    )


@pytest.mark.parametrize(
    ("model", "collection", "suffix"),
    [("bench/core:latest", "core", None), ("bench/core:merged:latest", "core", "merged")],
)
def test_latest_tag_is_stripped_but_the_model_is_echoed_as_sent(model: str, collection: str, suffix: str):
    asked = CHAT.decode(_chat(model=model), caller="local")
    assert (asked.collection, asked.suffix_reply, asked.model) == (collection, suffix, model)


@pytest.mark.parametrize(
    ("data", "mime"),
    [
        (PNG, "image/png"),
        (b"\xff\xd8\xff\xe0\x00\x10JFIF", "image/jpeg"),
        (b"GIF89a\x01\x00\x01\x00", "image/gif"),
        (b"RIFF\x24\x00\x00\x00WEBPVP8 ", "image/webp"),
        (b"BM\x3a\x00\x00\x00\x00\x00", "image/bmp"),
        (b"\x00\x01\x02\x03 no magic", "image/png"),
    ],
)
def test_images_become_data_urls_with_the_type_read_from_the_bytes(data: bytes, mime: str):
    message = {"role": "user", "content": "what is this?", "images": [_b64(data)]}
    asked = CHAT.decode(_chat(messages=[message]), caller="local")
    assert asked.messages[0]["content"] == [
        {"type": "text", "text": "what is this?"},
        {"type": "image_url", "image_url": {"url": f"data:{mime};base64,{_b64(data)}"}},
    ]


@pytest.mark.parametrize(
    ("data", "what"), [(b"%PDF-1.7\n", "PDF"), (b"RIFF\x24\x00\x00\x00WAVEfmt ", "audio")]
)
def test_pdf_or_audio_sent_as_an_image_is_refused(data: bytes, what: str):
    message = {"role": "user", "content": "read this", "images": [_b64(data)]}
    with pytest.raises(BadRequest, match=what):
        CHAT.decode(_chat(messages=[message]), caller="local")


def test_image_already_sent_as_a_data_url_is_passed_on_as_sent():
    url = f"data:image/gif;base64,{_b64(b'GIF89a')}"
    message = {"role": "user", "content": "", "images": [url]}
    asked = CHAT.decode(_chat(messages=[message]), caller="local")
    assert asked.messages[0]["content"] == [{"type": "image_url", "image_url": {"url": url}}]


def test_image_that_is_not_base64_is_refused():
    message = {"role": "user", "content": "x", "images": ["/home/me/cat.png"]}
    with pytest.raises(BadRequest, match="base64"):
        CHAT.decode(_chat(messages=[message]), caller="local")


def test_image_with_characters_outside_ascii_is_refused_as_not_base64():
    message = {"role": "user", "content": "x", "images": ["çat.png"]}
    with pytest.raises(BadRequest, match="base64") as caught:
        CHAT.decode(_chat(messages=[message]), caller="local")
    assert caught.value.param == "images"


@pytest.mark.parametrize("call", [None, {"function": {"arguments": {}}}], ids=["null", "no-name"])
def test_a_tool_call_without_a_function_name_is_refused_naming_the_messages(call: object):
    messages = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "", "tool_calls": [call]}]
    with pytest.raises(BadRequest, match=r"messages\[1\]\.tool_calls\[0\] must be") as caught:
        CHAT.decode(_chat(messages=messages), caller="local")
    assert caught.value.param == "messages"


def test_unknown_role_is_refused():
    with pytest.raises(BadRequest, match="role"):
        CHAT.decode(_chat(messages=[{"role": "developer", "content": "x"}]), caller="local")


def test_options_and_format_are_read_under_openai_names():
    asked = CHAT.decode(
        _chat(
            options={"num_predict": 64, "temperature": 0.2, "top_p": 0.9, "stop": ["\n"], "seed": 1},
            format="json",
        ),
        caller="local",
    )
    assert asked.options == {
        "max_tokens": 64,
        "temperature": 0.2,
        "top_p": 0.9,
        "stop": ["\n"],
        "seed": 1,
        "response_format": {"type": "json_object"},
    }


def test_a_no_limit_num_predict_asks_a_panel_for_no_max_tokens():
    for unlimited in (-1, -2):
        asked = CHAT.decode(_chat(options={"num_predict": unlimited, "temperature": 0}), caller="local")
        assert asked.options == {"temperature": 0}


def test_tool_calls_get_numbered_ids_and_each_result_answers_the_oldest_open_call():
    call = {"function": {"name": "weather", "arguments": {"city": "Oslo"}}}
    messages = [
        {"role": "user", "content": "weather in Oslo twice?"},
        {"role": "assistant", "content": "", "tool_calls": [call, call]},
        {"role": "tool", "tool_name": "weather", "content": "cold"},
        {"role": "tool", "tool_name": "weather", "content": "colder"},
    ]
    asked = CHAT.decode(_chat(messages=messages, model="bench/core:route"), caller="local")
    sent = asked.messages[1]["tool_calls"]
    assert [c["id"] for c in sent] == ["call_1", "call_2"]
    assert sent[0]["function"] == {"name": "weather", "arguments": '{"city":"Oslo"}'}
    assert [m["tool_call_id"] for m in asked.messages[2:]] == ["call_1", "call_2"]
    assert asked.tool_history


def test_tools_are_counted_as_offered_and_an_empty_list_offers_none():
    tools = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]
    asked = CHAT.decode(_chat(tools=tools), caller="local")
    assert asked.tools_offered == 1 and not asked.tool_history
    assert CHAT.decode(_chat(tools=[]), caller="local").tools_offered == 0


def test_generate_context_is_refused_pointing_to_chat():
    with pytest.raises(BadRequest, match="/api/chat"):
        GENERATE.decode({"model": "bench/core", "prompt": "and then?", "context": [1, 2, 3]}, caller="local")


def test_generate_system_prompt_and_images_become_one_turn():
    asked = GENERATE.decode(
        {"model": "bench/core", "system": "be brief", "prompt": "what is it?", "images": [_b64(PNG)]},
        caller="local",
    )
    assert asked.messages == [
        {"role": "system", "content": "be brief"},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "what is it?"},
                {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{_b64(PNG)}"}},
            ],
        },
    ]


def test_generate_refuses_several_prompts():
    with pytest.raises(BadRequest, match="one string"):
        GENERATE.decode({"model": "bench/core", "prompt": ["a", "b"]}, caller="local")


async def _events(*events: PanelEvent) -> AsyncIterator[PanelEvent]:
    for event in events:
        yield event


def _seat(alias: str, seconds: float) -> SeatResult:
    return SeatResult(
        call=f"p1.{alias}",
        label="member",
        alias=alias,
        kind="member",
        status="ok",
        seconds=seconds,
        answer="a",
    )


async def _lines(fmt: OllamaChat | OllamaGenerate, *events: PanelEvent) -> list[dict[str, object]]:
    asked = fmt.decode(
        {"model": "bench/core:latest", "prompt": "hi", "messages": [{"role": "user", "content": "hi"}]},
        caller="x",
    )
    raw = b"".join([chunk async for chunk in fmt.stream(asked, _events(*events))])
    assert raw.endswith(b"\n")
    return [orjson.loads(line) for line in raw.splitlines()]


async def test_stream_sends_pieces_keep_alives_and_a_done_line_with_the_panels_durations_and_bench():
    bench = {"panel": "p1", "seats": [_seat("m1", 0.5).as_bench(), _seat("m2", 1.25).as_bench()]}
    lines = await _lines(
        CHAT,
        Seated(panel="p1", collection="core", plan=PLAN, reply="all", text="heading\n"),
        Heartbeat(),
        SeatDone(result=_seat("m1", 0.5), text="section\n"),
        Finished(
            content="heading\nsection\nfooter\n",
            bench=bench,
            text="footer\n",
            times=PanelTimes(seated_s=0.125, first_answer_s=0.5, total_s=1.25),
            usage=TokenUsage(1, 6),
        ),
    )
    assert [line["message"]["content"] for line in lines] == ["heading\n", "", "section\n", "footer\n", ""]
    assert [line["done"] for line in lines] == [False, False, False, False, True]
    assert {line["model"] for line in lines} == {"bench/core:latest"}
    last = lines[-1]
    assert last["bench"] == bench and last["done_reason"] == "stop"
    assert last["total_duration"] == 1_250_000_000 and last["load_duration"] == 125_000_000
    assert (last["prompt_eval_duration"], last["eval_duration"]) == (375_000_000, 750_000_000)
    assert last["prompt_eval_count"] == 1 and last["eval_count"] == 6


async def test_error_after_the_start_is_an_error_line():
    lines = await _lines(
        GENERATE,
        Seated(panel="p1", collection="core", plan=PLAN, reply="all", text="heading\n"),
        Failed(500, "the database went away"),
    )
    assert lines == [lines[0], {"error": "the database went away"}]
    assert lines[0]["response"] == "heading\n"


def test_generate_reply_puts_the_text_in_response():
    asked = GENERATE.decode({"model": "bench/core", "prompt": "hi", "stream": False}, caller="x")
    reply = GENERATE.render(asked, [Finished(content="whole reply", bench={"seats": []})])
    assert reply["response"] == "whole reply" and "message" not in reply
    assert reply["done"] is True and reply["model"] == "bench/core"


def test_error_body_is_one_message():
    assert CHAT.error_body(BadRequest("no")) == {"error": "no"}
