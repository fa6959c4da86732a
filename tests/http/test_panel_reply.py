"""A panel over OpenAI chat completions: one section per seat, the bench field, streaming order."""

from __future__ import annotations

import re

from tests.http.helpers import ask, hello, sdk, sse_events
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream


def test_three_member_collection_answers_with_one_section_per_seat(bench: Gateway, upstream: FakeUpstream):
    reply = sdk(bench).chat.completions.create(
        model="bench/core",
        messages=[{"role": "system", "content": "be brief"}, {"role": "user", "content": "say hi"}],
    )
    panel = reply.model_extra["bench"]
    content = reply.choices[0].message.content
    assert reply.model == "bench/core"
    assert [s["alias"] for s in panel["seats"]] == ["m1", "m2", "m3"]
    for seat in panel["seats"]:
        assert seat["call"].startswith(panel["panel"] + ".member")
        assert seat["status"] == "ok" and seat["answer"] == f"answer from {seat['alias']}"
        assert isinstance(seat["seconds"], int | float)
        assert f"## member — {seat['alias']}" in content and seat["call"] in content
    assert set(panel) == {"panel", "collection", "shape", "shape_by", "seats", "usage", "verdict"}
    assert panel["collection"] == "bench/core"


def test_every_seat_receives_the_same_messages(bench: Gateway, upstream: FakeUpstream):
    messages = [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "one"},
        {"role": "assistant", "content": "two"},
        {"role": "user", "content": "three"},
    ]
    sdk(bench).chat.completions.create(model="bench/core", messages=messages)
    received = [upstream.requests_for(m)[0].body["messages"] for m in ("m1", "m2", "m3")]
    assert received == [messages, messages, messages]


def test_reply_never_carries_the_prompt(bench: Gateway, upstream: FakeUpstream):
    reply = ask(
        bench,
        {"model": "bench/core", "messages": [{"role": "user", "content": "a secret-looking prompt xyzzy"}]},
    )
    assert "xyzzy" not in str(reply.json()["bench"])


def test_streamed_fast_seat_section_arrives_before_slow_seat(bench: Gateway, upstream: FakeUpstream):
    upstream.behave("m1", delay=1.5)
    stream = sdk(bench).chat.completions.create(
        model="bench/core", messages=[{"role": "user", "content": "hi"}], stream=True
    )
    pieces, last = [], None
    for chunk in stream:
        last = chunk
        if chunk.choices and chunk.choices[0].delta.content:
            pieces.append(chunk.choices[0].delta.content)
    text = "".join(pieces)
    assert text.index("## member — m2") < text.index("## member — m1")
    assert text.index("## member — m3") < text.index("## member — m1")
    assert "**bench/core**" in pieces[0] and "## member" not in pieces[0], "the heading comes alone, first"
    panel = last.model_extra["bench"]
    assert [s["alias"] for s in panel["seats"]] == ["m1", "m2", "m3"]
    assert last.choices[0].finish_reason == "stop"


def test_streamed_text_equals_whole_reply_except_seat_order(bench: Gateway, upstream: FakeUpstream):
    raw = ask(bench, hello(stream=True)).text
    events = sse_events(raw)
    assert events[-1] == "[DONE]"
    chunks = [e for e in events if isinstance(e, dict)]
    assert all("bench" not in c for c in chunks[:-1]) and "bench" in chunks[-1]
    streamed = "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks)
    for seat in chunks[-1]["bench"]["seats"]:
        assert f"## member — {seat['alias']}" in streamed and seat["answer"] in streamed
    whole = ask(bench, hello()).json()["choices"][0]["message"]["content"]
    assert sorted(_normalised(streamed).splitlines()) == sorted(_normalised(whole).splitlines())


def _normalised(content: str) -> str:
    """The words of a reply without what differs between two panels (ids, timings)."""
    content = re.sub(r"p\d{8}-\d{6}-[0-9a-f]{4}", "PANEL", content)
    return re.sub(r"\d+(\.\d+)?\s?s\b", "N s", content)


def test_stream_sends_keep_alives_while_seats_think(bench: Gateway, upstream: FakeUpstream):
    upstream.behave("m1", delay=1.6)
    raw = ask(bench, hello(stream=True)).text
    assert ": keep-alive" in raw


def test_models_listing_shows_each_collection_in_three_modes(bench: Gateway, upstream: FakeUpstream):
    upstream.serve("m4")
    bench.add_model("m4", context_window=8192, vision=True)
    bench.api("PATCH", "/api/models/m1", {"context_window": 32768, "vision": True}, expect=200)
    bench.save_collection("pair", ["m1", "m4"], reply="merged", tags=["quick"])
    listed = {m.id: m for m in sdk(bench).models.list()}
    assert {
        "bench/core",
        "bench/core:merged",
        "bench/core:route",
        "bench/pair",
        "bench/pair:all",
        "bench/pair:route",
    } <= set(listed)
    pair = listed["bench/pair"].model_extra
    assert pair["reply"] == "merged" and pair["members"] == ["m1", "m4"] and pair["tags"] == ["quick"]
    assert pair["together"]["context_window"] == 8192
    assert pair["together"]["capabilities"] == ["vision"]
    assert listed["bench/core"].model_extra["together"]["context_unknown"] == ["m2", "m3"]
    one = sdk(bench).models.retrieve("bench/pair:all")
    assert one.model_extra["reply"] == "all"


def test_a_whole_reply_carries_usage_as_the_sdk_reads_it(bench: Gateway, upstream: FakeUpstream):
    completion = sdk(bench).chat.completions.create(model="bench/core", messages=hello()["messages"])
    assert completion.usage is not None
    usage = completion.usage.model_dump()  # what llm does with every reply
    assert usage["prompt_tokens"] > 0 and usage["completion_tokens"] > 0
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]


def test_a_stream_ends_with_a_usage_chunk_only_when_asked(bench: Gateway, upstream: FakeUpstream):
    client = sdk(bench)
    asked = list(
        client.chat.completions.create(
            model="bench/core",
            messages=hello()["messages"],
            stream=True,
            stream_options={"include_usage": True},
        )
    )
    usage = asked[-1].usage
    assert asked[-1].choices == [] and usage is not None
    assert usage.completion_tokens > 0 and usage.total_tokens == usage.prompt_tokens + usage.completion_tokens
    assert all(chunk.usage is None for chunk in asked[:-1])
    plain = list(
        client.chat.completions.create(model="bench/core", messages=hello()["messages"], stream=True)
    )
    assert all(chunk.usage is None for chunk in plain)
