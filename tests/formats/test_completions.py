"""The legacy completions adapter on its own: what it reads from a body and what it writes for events."""

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
from panelgate.formats.completions.panel import OpenAICompletions

FORMAT = OpenAICompletions()
PLAN = SeatPlan(seats=(), skipped=(), shape="general", shape_by="default", members=0, explorers=0)


def _decode(prompt: Any = "hi", **extra: Any) -> PanelRequest:
    return FORMAT.decode({"model": "bench/core", "prompt": prompt, **extra}, caller="local")


def test_prompt_becomes_one_user_message():
    asked = _decode("say hi")
    assert asked.messages == [{"role": "user", "content": "say hi"}]
    assert not asked.tools_offered and not asked.tool_history and not asked.stream


def test_one_prompt_in_a_list_is_accepted():
    assert _decode(["say hi"]).messages == [{"role": "user", "content": "say hi"}]


@pytest.mark.parametrize(
    ("prompt", "said"),
    [
        (["one", "two"], "2 prompts"),
        ([], "0 prompts"),
        ([1, 2, 3], "token ids"),
        ([[1, 2], [3]], "token ids"),
        ("", "empty"),
        (None, "one string"),
        ({"text": "hi"}, "one string"),
    ],
    ids=["several", "none-listed", "token-ids", "token-id-lists", "empty", "missing", "object"],
)
def test_anything_but_one_prompt_string_is_refused(prompt: Any, said: str):
    with pytest.raises(BadRequest, match=said) as caught:
        _decode(prompt)
    assert caught.value.param == "prompt"


def test_suffix_is_refused():
    with pytest.raises(BadRequest, match="fill in the middle") as caught:
        _decode("def f(", suffix="return x")
    assert caught.value.param == "suffix"


def test_empty_suffix_is_no_suffix():
    assert _decode("def f(", suffix="").messages == [{"role": "user", "content": "def f("}]


def test_decode_reads_collection_suffix_nominees_reply_and_options():
    asked = _decode(
        model="bench/core:merged",
        stream=True,
        max_tokens=100,
        temperature=0.2,
        stop=["END"],
        logprobs=2,
        **{"with": ["m4"], "bench": {"reply": "all"}},
    )
    assert (asked.model, asked.collection, asked.suffix_reply, asked.reply) == (
        "bench/core:merged",
        "core",
        "merged",
        "all",
    )
    assert asked.nominees == ("m4",) and asked.stream
    assert asked.options == {"max_tokens": 100, "temperature": 0.2, "stop": ["END"]}


def test_whole_reply_is_a_text_completion_echoing_the_model_with_the_panels_usage():
    asked = FORMAT.decode({"model": "core:all", "prompt": "x" * 40}, caller="local")
    finished = Finished(content="y" * 400, bench={"panel": "p1"}, usage=TokenUsage(11, 110))
    reply = FORMAT.render(asked, [Seated("p1", "core", PLAN, "all"), finished])
    assert (reply["id"], reply["object"], reply["model"]) == ("cmpl-p1", "text_completion", "core:all")
    assert reply["choices"] == [{"text": "y" * 400, "index": 0, "logprobs": None, "finish_reason": "stop"}]
    assert reply["usage"] == {"prompt_tokens": 11, "completion_tokens": 110, "total_tokens": 121}
    assert reply["bench"] == {"panel": "p1"}


async def _events(*events: PanelEvent) -> AsyncIterator[PanelEvent]:
    for event in events:
        yield event


async def _streamed(*events: PanelEvent) -> bytes:
    return b"".join([c async for c in FORMAT.stream(_decode(stream=True), _events(*events))])


def _blocks(raw: bytes) -> list[Any]:
    """Each SSE block: a JSON chunk, `[DONE]`, or the keep-alive comment as written."""
    blocks: list[Any] = []
    for block in raw.decode().split("\n\n"):
        if block.startswith("data: "):
            data = block.removeprefix("data: ")
            blocks.append(data if data == "[DONE]" else orjson.loads(data))
        elif block:
            blocks.append(block)
    return blocks


async def test_stream_sends_text_completion_chunks_with_bench_on_the_last():
    blocks = _blocks(
        await _streamed(
            Seated("p1", "core", PLAN, "all", text="heading\n"),
            Heartbeat(),
            MergeDelta("seat\n"),
            Finished(content="heading\nseat\nfooter", bench={"panel": "p1"}, text="footer"),
        )
    )
    assert blocks[1] == ": keep-alive" and blocks[-1] == "[DONE]"
    chunks = [b for b in blocks if isinstance(b, dict)]
    assert [c["choices"][0]["text"] for c in chunks] == ["heading\n", "seat\n", "footer"]
    assert all(c["object"] == "text_completion" and c["id"] == "cmpl-p1" for c in chunks)
    assert [c["choices"][0]["finish_reason"] for c in chunks] == [None, None, "stop"]
    assert chunks[-1]["bench"] == {"panel": "p1"} and all("bench" not in c for c in chunks[:-1])


async def test_error_after_the_start_is_an_error_chunk_then_done():
    blocks = _blocks(await _streamed(Seated("p1", "core", PLAN, "all"), Failed(503, "upstream gone")))
    assert blocks == [
        {"error": {"message": "upstream gone", "type": "overloaded_error", "param": None, "code": "503"}},
        "[DONE]",
    ]


async def test_sdk_raises_on_an_error_after_the_start():
    raw = await _streamed(Seated("p1", "core", PLAN, "all", text="heading\n"), Failed(500, "the panel broke"))
    transport = httpx2.MockTransport(
        lambda _: httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=raw)
    )
    with (
        openai.OpenAI(
            base_url="http://gateway.invalid/v1",
            api_key="x",
            max_retries=0,
            http_client=httpx2.Client(transport=transport),
        ) as client,
        pytest.raises(openai.APIError, match="the panel broke"),
    ):
        list(client.completions.create(model="bench/core", prompt="hi", stream=True))


@pytest.mark.parametrize(
    ("error", "kind", "code"),
    [
        (BadRequest("why", param="prompt"), "invalid_request_error", "400"),
        (NotFound("why", param="model"), "not_found_error", "404"),
        (GatewayError("why"), "api_error", "500"),
    ],
)
def test_error_body_is_the_openai_shape(error: GatewayError, kind: str, code: str):
    assert FORMAT.error_body(error) == {
        "error": {"message": "why", "type": kind, "param": error.param, "code": code}
    }
