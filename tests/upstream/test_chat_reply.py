"""Reading a chat reply: streamed pieces, usage, reasoning, tool calls, and the shapes endpoints send."""

from __future__ import annotations

from panelgate.upstream import UpstreamClient
from tests.support.upstream import FakeUpstream
from tests.upstream.helpers import HELLO, Collected, seconds_from_now, target_on


async def test_streamed_answer_is_assembled_and_each_piece_reaches_on_text(
    client: UpstreamClient, upstream: FakeUpstream
):
    upstream.behave("m1", answer="one two three four", chunks=4)
    sink = Collected()
    result = await client.chat(target_on(upstream), HELLO, {}, deadline=seconds_from_now(5), on_text=sink)
    assert result.text == "one two three four"
    assert sink.pieces == ["one t", "wo th", "ree f", "our"]
    assert result.finish_reason == "stop" and result.attempts == 1 and result.model == "m1"


async def test_request_streams_with_usage_and_keeps_call_options(
    client: UpstreamClient, upstream: FakeUpstream
):
    await client.chat(
        target_on(upstream), HELLO, {"temperature": 0.2, "stream": False}, deadline=seconds_from_now(5)
    )
    body = upstream.requests_for("m1")[0].body
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}
    assert body["temperature"] == 0.2 and body["messages"] == HELLO and body["model"] == "m1"


async def test_usage_and_reasoning_are_read_from_the_stream(client: UpstreamClient, upstream: FakeUpstream):
    upstream.behave("m1", answer="42", usage=(120, 7), reasoning="think hard first")
    result = await client.chat(target_on(upstream), HELLO, {}, deadline=seconds_from_now(5))
    assert (result.tokens_in, result.tokens_out, result.tokens_reasoning) == (120, 7, 3)
    assert result.reasoning == "think hard first" and result.text == "42"


async def test_refused_stream_options_is_asked_again_without_them(
    client: UpstreamClient, upstream: FakeUpstream
):
    upstream.behave("m1", answer="fine without", reject_stream_options=True)
    result = await client.chat(target_on(upstream), HELLO, {}, deadline=seconds_from_now(5))
    sent = [request.body for request in upstream.requests_for("m1")]
    assert result.text == "fine without"
    assert "stream_options" in sent[0] and "stream_options" not in sent[1] and len(sent) == 2


async def test_plain_json_answer_to_a_stream_request_is_read_whole(
    client: UpstreamClient, upstream: FakeUpstream
):
    upstream.behave("m1", answer="all at once", plain_json=True, usage=(9, 3))
    sink = Collected()
    result = await client.chat(target_on(upstream), HELLO, {}, deadline=seconds_from_now(5), on_text=sink)
    assert result.text == "all at once" and sink.pieces == ["all at once"]
    assert (result.tokens_in, result.tokens_out) == (9, 3)


async def test_empty_answer_is_a_result_not_an_error(client: UpstreamClient, upstream: FakeUpstream):
    upstream.behave("m1", empty=True, finish_reason="length")
    result = await client.chat(target_on(upstream), HELLO, {}, deadline=seconds_from_now(5))
    assert result.text == "" and result.finish_reason == "length"


async def test_streamed_tool_calls_are_assembled(client: UpstreamClient, upstream: FakeUpstream):
    upstream.behave("m1", tool_calls=[{"name": "lookup", "arguments": {"q": "panel"}}])
    result = await client.chat(target_on(upstream), HELLO, {"tools": []}, deadline=seconds_from_now(5))
    assert result.finish_reason == "tool_calls" and result.text == ""
    assert [(c["function"]["name"], c["function"]["arguments"]) for c in result.tool_calls] == [
        ("lookup", '{"q":"panel"}')
    ]
