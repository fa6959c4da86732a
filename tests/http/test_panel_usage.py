"""Usage on panel replies, in every API format, read by the official SDKs.

Each format's own usage fields carry what the panel's calls used (every seat's and the
merger's tokens as their upstreams reported them, summed); `bench.seats[].usage` says it
per seat and `bench.usage` in all, each marked `estimated` when an upstream reported none.
"""

from __future__ import annotations

from typing import Any

import anthropic
import httpx
import ollama
import orjson
import pytest
from google import genai
from google.genai import types
from openai.types.responses import ResponseCompletedEvent

from tests.http.helpers import sdk
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream

HI = [{"role": "user", "content": "say hi"}]
COUNTS = {"m1": (10, 1), "m2": (20, 2), "m3": (30, 3)}
"""What the loopback upstream reports for each seat: (prompt tokens, completion tokens)."""
INPUT, OUTPUT = 60, 6
MERGER = (100, 10)


@pytest.fixture
def counted(bench: Gateway, upstream: FakeUpstream) -> Gateway:
    """The bench, each member's upstream reporting its own counts (`COUNTS`)."""
    for model, usage in COUNTS.items():
        upstream.behave(model, usage=usage)
    return bench


@pytest.fixture
def merging(counted: Gateway, upstream: FakeUpstream) -> Gateway:
    """`counted`, with merger `mg` on the collection reporting `MERGER`."""
    upstream.serve("merger-model")
    counted.add_model("mg", "merger-model")
    counted.api("PATCH", "/api/collections/core", {"merger": "mg"}, expect=200)
    upstream.behave("merger-model", answer="the merged answer", usage=MERGER)
    return counted


def _seat_usage(seats: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {seat["alias"]: seat["usage"] for seat in seats}


def _assert_counted(bench: dict[str, Any]) -> None:
    """Every seat carries its upstream's counts, and `bench.usage` their sum, none estimated."""
    assert _seat_usage(bench["seats"]) == {
        alias: {"input": given, "output": answered, "estimated": False}
        for alias, (given, answered) in COUNTS.items()
    }
    assert bench["usage"] == {"input": INPUT, "output": OUTPUT, "estimated": False}


def _gemini(gateway: Gateway) -> genai.Client:
    """google-genai as it ships: on its default API version, `v1`."""
    options = types.HttpOptions(base_url=gateway.url, retry_options=types.HttpRetryOptions(attempts=1))
    return gateway.keep(genai.Client(api_key="x", http_options=options))


def _anthropic(gateway: Gateway) -> anthropic.Anthropic:
    return gateway.keep(anthropic.Anthropic(base_url=gateway.url, api_key="x", max_retries=0))


# ---- OpenAI chat completions ---------------------------------------------------------


def test_chat_whole_reply_sums_every_seats_usage(counted: Gateway):
    completion = sdk(counted).chat.completions.create(model="bench/core", messages=HI)
    assert completion.usage is not None
    assert (completion.usage.prompt_tokens, completion.usage.completion_tokens) == (INPUT, OUTPUT)
    assert completion.usage.total_tokens == INPUT + OUTPUT
    _assert_counted(completion.model_extra["bench"])


def test_chat_stream_ends_with_the_summed_usage_chunk_when_asked(counted: Gateway):
    chunks = list(
        sdk(counted).chat.completions.create(
            model="bench/core",
            messages=HI,
            stream=True,
            stream_options={"include_usage": True},
        )
    )
    usage = chunks[-1].usage
    assert usage is not None and (usage.prompt_tokens, usage.completion_tokens) == (INPUT, OUTPUT)
    _assert_counted(chunks[-2].model_extra["bench"])


def test_merged_reply_counts_the_mergers_call_too(merging: Gateway):
    completion = sdk(merging).chat.completions.create(model="bench/core:merged", messages=HI)
    bench = completion.model_extra["bench"]
    assert bench["merger"]["usage"] == {"input": MERGER[0], "output": MERGER[1], "estimated": False}
    assert completion.usage is not None
    assert (completion.usage.prompt_tokens, completion.usage.completion_tokens) == (
        INPUT + MERGER[0],
        OUTPUT + MERGER[1],
    )
    assert bench["usage"] == {"input": INPUT + MERGER[0], "output": OUTPUT + MERGER[1], "estimated": False}


def test_seats_whose_upstream_reports_no_usage_are_estimated_and_marked(
    bench: Gateway, upstream: FakeUpstream
):
    for model in COUNTS:  # refused, the stream is asked again without `include_usage`: no counts come
        upstream.behave(model, reject_stream_options=True)
    completion = sdk(bench).chat.completions.create(model="bench/core", messages=HI)
    bench_field = completion.model_extra["bench"]
    seats = list(_seat_usage(bench_field["seats"]).values())
    assert all(seat["estimated"] and seat["input"] > 0 and seat["output"] > 0 for seat in seats)
    total = (sum(seat["input"] for seat in seats), sum(seat["output"] for seat in seats))
    assert bench_field["usage"] == {"input": total[0], "output": total[1], "estimated": True}
    assert completion.usage is not None
    assert (completion.usage.prompt_tokens, completion.usage.completion_tokens) == total


def test_one_estimated_seat_marks_the_panels_usage_estimated(counted: Gateway, upstream: FakeUpstream):
    upstream.behave("m2", reject_stream_options=True)
    completion = sdk(counted).chat.completions.create(model="bench/core", messages=HI)
    bench = completion.model_extra["bench"]
    assert [seat["usage"]["estimated"] for seat in bench["seats"]] == [False, True, False]
    assert bench["usage"]["estimated"] is True


# ---- OpenAI legacy completions -------------------------------------------------------


def test_completions_whole_reply_sums_every_seats_usage(counted: Gateway):
    completion = sdk(counted).completions.create(model="bench/core", prompt="say hi")
    assert completion.usage is not None
    assert (completion.usage.prompt_tokens, completion.usage.completion_tokens) == (INPUT, OUTPUT)
    assert completion.usage.total_tokens == INPUT + OUTPUT
    _assert_counted(completion.model_extra["bench"])


def test_completions_stream_ends_with_a_usage_chunk_only_when_asked(counted: Gateway):
    client = sdk(counted)
    asked = list(
        client.completions.create(
            model="bench/core", prompt="say hi", stream=True, stream_options={"include_usage": True}
        )
    )
    usage = asked[-1].usage
    assert asked[-1].choices == [] and usage is not None
    assert (usage.prompt_tokens, usage.completion_tokens, usage.total_tokens) == (
        INPUT,
        OUTPUT,
        INPUT + OUTPUT,
    )
    assert all(chunk.usage is None for chunk in asked[:-1])
    _assert_counted(asked[-2].model_extra["bench"])
    plain = list(client.completions.create(model="bench/core", prompt="say hi", stream=True))
    assert all(chunk.usage is None for chunk in plain)


# ---- OpenAI Responses ----------------------------------------------------------------


def test_responses_whole_reply_sums_every_seats_usage(counted: Gateway):
    response = sdk(counted).responses.create(model="bench/core", input="say hi")
    assert response.usage is not None
    assert (response.usage.input_tokens, response.usage.output_tokens) == (INPUT, OUTPUT)
    assert response.usage.total_tokens == INPUT + OUTPUT
    _assert_counted(response.model_extra["bench"])


def test_responses_stream_completes_with_the_summed_usage(merging: Gateway):
    events = list(sdk(merging).responses.create(model="bench/core:merged", input="say hi", stream=True))
    completed = events[-1]
    assert isinstance(completed, ResponseCompletedEvent)
    usage = completed.response.usage
    assert usage is not None
    assert (usage.input_tokens, usage.output_tokens) == (INPUT + MERGER[0], OUTPUT + MERGER[1])
    assert usage.total_tokens == INPUT + MERGER[0] + OUTPUT + MERGER[1]
    bench = completed.response.model_extra["bench"]
    _assert_counted({**bench, "usage": {"input": INPUT, "output": OUTPUT, "estimated": False}})
    assert bench["merger"]["usage"] == {"input": MERGER[0], "output": MERGER[1], "estimated": False}


# ---- Anthropic Messages --------------------------------------------------------------


def test_anthropic_whole_reply_sums_every_seats_usage(counted: Gateway):
    message = _anthropic(counted).messages.create(model="bench/core", max_tokens=64, messages=HI)
    assert (message.usage.input_tokens, message.usage.output_tokens) == (INPUT, OUTPUT)
    _assert_counted(message.model_extra["bench"])


def test_anthropic_stream_ends_with_the_summed_usage_in_message_delta(counted: Gateway):
    started, delta = None, None
    with _anthropic(counted).messages.stream(model="bench/core", max_tokens=64, messages=HI) as stream:
        for event in stream:
            if event.type == "message_start":
                started = event.message.usage
            elif event.type == "message_delta":
                delta = event
        final = stream.get_final_message()
    assert started is not None and started.input_tokens > 0, "message_start carries the prompt's size"
    assert delta is not None and (delta.usage.input_tokens, delta.usage.output_tokens) == (INPUT, OUTPUT)
    assert (final.usage.input_tokens, final.usage.output_tokens) == (INPUT, OUTPUT)
    _assert_counted(delta.model_extra["bench"])


# ---- Ollama --------------------------------------------------------------------------


def test_ollama_whole_reply_sums_every_seats_usage(counted: Gateway):
    with ollama.Client(host=counted.url, timeout=30) as client:
        reply = client.chat(model="bench/core", messages=HI, stream=False)
    assert (reply.prompt_eval_count, reply.eval_count) == (INPUT, OUTPUT)
    raw = httpx.post(f"{counted.url}/api/chat", json={"model": "bench/core", "messages": HI, "stream": False})
    _assert_counted(raw.json()["bench"])  # the SDK drops fields it does not know


def test_ollama_stream_ends_with_the_summed_usage_on_the_done_line(counted: Gateway):
    with ollama.Client(host=counted.url, timeout=30) as client:
        parts = list(client.chat(model="bench/core", messages=HI, stream=True))
    assert parts[-1].done and (parts[-1].prompt_eval_count, parts[-1].eval_count) == (INPUT, OUTPUT)
    raw = httpx.post(f"{counted.url}/api/chat", json={"model": "bench/core", "messages": HI}, timeout=30)
    last = orjson.loads(raw.text.splitlines()[-1])
    assert last["done"] and (last["prompt_eval_count"], last["eval_count"]) == (INPUT, OUTPUT)
    _assert_counted(last["bench"])


# ---- Gemini --------------------------------------------------------------------------


def test_gemini_whole_reply_sums_every_seats_usage(counted: Gateway):
    reply = _gemini(counted).models.generate_content(model="bench/core", contents="say hi")
    usage = reply.usage_metadata
    assert usage is not None
    assert (usage.prompt_token_count, usage.candidates_token_count) == (INPUT, OUTPUT)
    assert usage.total_token_count == INPUT + OUTPUT
    raw = httpx.post(
        f"{counted.url}/v1beta/models/bench/core:generateContent",
        json={"contents": [{"role": "user", "parts": [{"text": "say hi"}]}]},
        timeout=30,
    )
    seats = orjson.loads(raw.headers["X-Bench-Seats"])  # Google's SDKs refuse a `bench` field
    assert _seat_usage(seats) == {
        alias: {"input": given, "output": answered, "estimated": False}
        for alias, (given, answered) in COUNTS.items()
    }


def test_gemini_stream_ends_with_the_summed_usage_on_the_last_chunk(counted: Gateway):
    chunks = list(_gemini(counted).models.generate_content_stream(model="bench/core", contents="say hi"))
    usage = chunks[-1].usage_metadata
    assert usage is not None
    assert (usage.prompt_token_count, usage.candidates_token_count) == (INPUT, OUTPUT)
    assert usage.total_token_count == INPUT + OUTPUT
    assert all(chunk.usage_metadata is None for chunk in chunks[:-1])
