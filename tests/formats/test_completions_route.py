"""Legacy completions in route mode on its own: the OpenAI body a prompt becomes, and the replies."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx2
import openai
import orjson
import pytest
from openai.types import Completion

from panelgate.core.errors import BadRequest
from panelgate.core.route import RouteBroken, RouteChunk, RouteEnded, RouteEvent, RouteRequest, RouteStarted
from panelgate.core.turn import TurnReader
from panelgate.core.types import Heartbeat
from panelgate.formats.completions.route import CompletionsRoute

ROUTE = CompletionsRoute()


def _decode(prompt: Any = "hi", **extra: Any) -> RouteRequest:
    return ROUTE.decode_route({"model": "bench/core:route", "prompt": prompt, **extra}, caller="local")


def test_the_prompt_becomes_one_user_message_with_the_sampling_fields_as_sent():
    asked = _decode(
        ["def f("],
        max_tokens=40,
        temperature=0.2,
        top_p=0.9,
        stop=["\n\n"],
        seed=3,
        stream=True,
        user="me",
        **{"with": ["m4"]},
    )
    assert asked.body == {
        "messages": [{"role": "user", "content": "def f("}],
        "max_tokens": 40,
        "temperature": 0.2,
        "top_p": 0.9,
        "stop": ["\n\n"],
        "seed": 3,
    }
    assert (asked.model, asked.collection, asked.suffix_reply, asked.stream) == (
        "bench/core",
        "core",
        "route",
        True,
    )


@pytest.mark.parametrize(
    ("extra", "param"),
    [
        ({"suffix": "return x"}, "suffix"),
        ({"echo": True}, "echo"),
        ({"logprobs": 0}, "logprobs"),
        ({"n": 2}, "n"),
        ({"best_of": 3}, "best_of"),
        ({"logit_bias": {"50256": -100}}, "logit_bias"),
    ],
)
def test_what_only_a_raw_completion_model_could_do_is_refused(extra: dict[str, Any], param: str):
    with pytest.raises(BadRequest) as caught:
        _decode(**extra)
    assert caught.value.param == param


def test_the_defaults_of_those_fields_are_accepted():
    asked = _decode(echo=False, logprobs=None, n=1, best_of=1, logit_bias={}, suffix="")
    assert asked.body == {"messages": [{"role": "user", "content": "hi"}]}


@pytest.mark.parametrize("prompt", [["a", "b"], [1, 2], ""])
def test_anything_but_one_prompt_string_is_refused(prompt: Any):
    with pytest.raises(BadRequest) as caught:
        _decode(prompt)
    assert caught.value.param == "prompt"


# ---- replies -----------------------------------------------------------------------------------

STARTED = RouteStarted(conversation="r1", call="r1.1", alias="m1", served_id="vendor/m1")
BENCH = {"conversation": "r1", "call": "r1.1", "model": "m1"}


def _text(text: str) -> dict[str, Any]:
    return {"choices": [{"index": 0, "delta": {"content": text}}]}


def _finish(reason: str, **usage: Any) -> dict[str, Any]:
    return {
        "choices": [{"index": 0, "delta": {}, "finish_reason": reason}],
        **({"usage": usage} if usage else {}),
    }


def _turn(*chunks: dict[str, Any]) -> list[RouteEvent]:
    """The events of one turn, read from OpenAI chunks as the engine reads them."""
    reader = TurnReader()
    events: list[RouteEvent] = [STARTED]
    events += [RouteChunk(chunk, tuple(reader.feed(chunk))) for chunk in chunks]
    events.append(
        RouteEnded(
            bench=BENCH,
            finish_reason=reader.finish_reason,
            usage=reader.usage,
            text=reader.text,
            reasoning=reader.reasoning,
        )
    )
    return events


def test_whole_reply_is_a_text_completion_with_the_members_usage_and_bench():
    reply = ROUTE.render_route(
        _decode(), _turn(_text("x = "), _text("1"), _finish("length", prompt_tokens=5, completion_tokens=2))
    )
    assert (reply["id"], reply["object"], reply["model"]) == (
        "cmpl-r1.1",
        "text_completion",
        "bench/core",
    )
    assert reply["choices"] == [{"text": "x = 1", "index": 0, "logprobs": None, "finish_reason": "length"}]
    assert reply["usage"] == {"prompt_tokens": 5, "completion_tokens": 2, "total_tokens": 7}
    assert reply["bench"] == BENCH
    assert Completion.model_validate(reply).choices[0].text == "x = 1"


def test_usage_is_estimated_when_the_member_sent_none():
    reply = ROUTE.render_route(_decode("x" * 40), _turn(_text("y" * 400), _finish("stop")))
    assert reply["usage"] == {"prompt_tokens": 11, "completion_tokens": 110, "total_tokens": 121}


async def _events(events: list[RouteEvent]) -> AsyncIterator[RouteEvent]:
    for event in events:
        yield event


async def _streamed(events: list[RouteEvent]) -> bytes:
    return b"".join([c async for c in ROUTE.stream_route(_decode(stream=True), _events(events))])


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


async def test_stream_sends_text_completion_chunks_with_finish_usage_and_bench_on_the_last():
    reasoning = {"choices": [{"index": 0, "delta": {"reasoning_content": "hmm"}}]}
    events = _turn(
        reasoning, _text("x = "), _text("1"), _finish("stop", prompt_tokens=5, completion_tokens=2)
    )
    events.insert(2, Heartbeat())
    blocks = _blocks(await _streamed(events))
    assert blocks[0] == ": keep-alive" and blocks[-1] == "[DONE]"
    chunks = [b for b in blocks if isinstance(b, dict)]
    assert [c["choices"][0]["text"] for c in chunks] == ["x = ", "1", ""]
    assert [c["choices"][0]["finish_reason"] for c in chunks] == [None, None, "stop"]
    assert all(c["object"] == "text_completion" and c["id"] == "cmpl-r1.1" for c in chunks)
    assert chunks[-1]["usage"]["total_tokens"] == 7 and chunks[-1]["bench"] == BENCH
    assert all("bench" not in c and "usage" not in c for c in chunks[:-1])


def _client(raw: bytes) -> openai.OpenAI:
    transport = httpx2.MockTransport(
        lambda _: httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=raw)
    )
    return openai.OpenAI(
        base_url="http://gateway.invalid/v1",
        api_key="x",
        max_retries=0,
        http_client=httpx2.Client(transport=transport),
    )


async def test_the_sdk_reads_the_stream():
    raw = await _streamed(_turn(_text("x = "), _text("1"), _finish("stop")))
    with _client(raw) as client:
        parts = list(client.completions.create(model="bench/core:route", prompt="hi", stream=True))
    assert "".join(p.choices[0].text for p in parts) == "x = 1"
    assert parts[-1].choices[0].finish_reason == "stop"


async def test_the_sdk_raises_when_the_member_breaks_part_way():
    raw = await _streamed([STARTED, *_turn(_text("x"))[1:2], RouteBroken("member went away", BENCH)])
    assert _blocks(raw)[-2:] == [
        {"error": {"message": "member went away", "type": "api_error", "param": None, "code": "502"}},
        "[DONE]",
    ]
    with _client(raw) as client, pytest.raises(openai.APIError, match="member went away"):
        list(client.completions.create(model="bench/core:route", prompt="hi", stream=True))
