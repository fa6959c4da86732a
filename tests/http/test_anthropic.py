"""A panel over Anthropic Messages, with the official `anthropic` SDK as the client."""

from __future__ import annotations

from typing import Any

import anthropic
import httpx
import orjson
import pytest

from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream

PIXEL_DATA = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)
HI = [{"role": "user", "content": "say hi"}]


def _client(gateway: Gateway) -> anthropic.Anthropic:
    return gateway.keep(anthropic.Anthropic(base_url=gateway.url, api_key="x", max_retries=0))


def _post(gateway: Gateway, path: str, body: dict[str, Any]) -> httpx.Response:
    return httpx.post(f"{gateway.url}{path}", json=body, timeout=60)


def _anthropic_error(response: httpx.Response, status: int, kind: str) -> str:
    assert response.status_code == status, response.text
    body = response.json()
    assert body["type"] == "error" and body["error"]["type"] == kind
    return str(body["error"]["message"])


def _sse(raw: str) -> list[tuple[str, dict[str, Any]]]:
    events, name = [], ""
    for line in raw.splitlines():
        if line.startswith("event: "):
            name = line.removeprefix("event: ")
        elif line.startswith("data: "):
            events.append((name, orjson.loads(line.removeprefix("data: "))))
    return events


def test_three_member_collection_answers_with_one_section_per_seat(bench: Gateway, upstream: FakeUpstream):
    message = _client(bench).messages.create(
        model="bench/core", max_tokens=256, system="be brief", messages=HI
    )
    panel = message.model_extra["bench"]
    text = message.content[0].text
    assert message.model == "bench/core" and message.stop_reason == "end_turn"
    assert message.usage.input_tokens > 0 and message.usage.output_tokens > 0
    assert [s["alias"] for s in panel["seats"]] == ["m1", "m2", "m3"]
    for seat in panel["seats"]:
        assert seat["status"] == "ok" and seat["call"] in text
        assert f"## member — {seat['alias']}" in text and f"answer from {seat['alias']}" in text
    sent = [upstream.requests_for(m)[0].body["messages"] for m in ("m1", "m2", "m3")]
    expected = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "say hi"}]
    assert sent == [expected, expected, expected]


def test_model_name_is_echoed_as_sent(bench: Gateway, upstream: FakeUpstream):
    message = _client(bench).messages.create(model="core:all", max_tokens=64, messages=HI)
    assert message.model == "core:all" and message.model_extra["bench"]["collection"] == "bench/core"


def test_streamed_fast_seat_section_arrives_before_slow_seat(bench: Gateway, upstream: FakeUpstream):
    upstream.behave("m1", delay=1.5)
    pieces, delta = [], None
    with _client(bench).messages.stream(model="bench/core", max_tokens=64, messages=HI) as stream:
        for event in stream:
            if event.type == "content_block_delta":
                pieces.append(event.delta.text)
            elif event.type == "message_delta":
                delta = event
        final = stream.get_final_message()
    text = "".join(pieces)
    assert text.index("## member — m2") < text.index("## member — m1")
    assert text.index("## member — m3") < text.index("## member — m1")
    assert "**bench/core**" in pieces[0] and "## member" not in pieces[0], "the heading comes alone, first"
    assert delta is not None and delta.delta.stop_reason == "end_turn"
    assert [s["alias"] for s in delta.model_extra["bench"]["seats"]] == ["m1", "m2", "m3"]
    assert final.content[0].text == text


def test_stream_sends_pings_while_seats_think(bench: Gateway, upstream: FakeUpstream):
    upstream.behave("m1", delay=1.6)
    raw = _post(
        bench, "/v1/messages", {"model": "bench/core", "max_tokens": 64, "messages": HI, "stream": True}
    )
    names = [name for name, _ in _sse(raw.text)]
    assert names[:2] == ["message_start", "content_block_start"]
    assert "ping" in names and names[-2:] == ["message_delta", "message_stop"]


def test_merged_suffix_answers_with_the_mergers_text(bench: Gateway, upstream: FakeUpstream):
    upstream.serve("merger-model")
    bench.add_model("mg", "merger-model")
    bench.api("PATCH", "/api/collections/core", {"merger": "mg"}, expect=200)
    message = _client(bench).messages.create(model="bench/core:merged", max_tokens=64, messages=HI)
    assert message.model_extra["bench"]["reply"] == "merged"
    assert message.content[0].text.startswith("answer from merger-model")


def test_unknown_collection_is_404_listing_collections(bench: Gateway, upstream: FakeUpstream):
    with pytest.raises(anthropic.NotFoundError) as caught:
        _client(bench).messages.create(model="bench/nope", max_tokens=64, messages=HI)
    assert caught.value.body["error"]["type"] == "not_found_error"
    assert "bench/core" in caught.value.body["error"]["message"]
    assert upstream.requests == []


def test_tools_offered_to_a_panel_are_left_out_and_the_note_says_so(bench: Gateway, upstream: FakeUpstream):
    tools: Any = [{"name": "f", "description": "a tool", "input_schema": {"type": "object"}}]
    message = _client(bench).messages.create(model="bench/core", max_tokens=64, messages=HI, tools=tools)
    assert "offered 1 tool," in message.model_extra["bench"]["note"]
    assert len(upstream.requests) == 3 and all("tools" not in r.body for r in upstream.requests)


def test_pdf_document_block_is_refused(bench: Gateway, upstream: FakeUpstream):
    document = {
        "type": "document",
        "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBERi0xLjQK"},
    }
    content = [document, {"type": "text", "text": "summarise"}]
    with pytest.raises(anthropic.BadRequestError) as caught:
        _client(bench).messages.create(
            model="bench/core", max_tokens=64, messages=[{"role": "user", "content": content}]
        )
    assert caught.value.body["error"]["type"] == "invalid_request_error"
    assert "PDF" in caught.value.body["error"]["message"]
    assert upstream.requests == []


def test_image_blocks_reach_only_seeing_seats(bench: Gateway, upstream: FakeUpstream):
    bench.api("PATCH", "/api/models/m1", {"vision": True}, expect=200)
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PIXEL_DATA}}
    message = _client(bench).messages.create(
        model="bench/core",
        max_tokens=64,
        messages=[{"role": "user", "content": [{"type": "text", "text": "what is this?"}, image]}],
    )
    panel = message.model_extra["bench"]
    assert [s["alias"] for s in panel["seats"]] == ["m1"]
    assert upstream.requests_for("m2") == [] and upstream.requests_for("m3") == []
    sent = upstream.requests_for("m1")[0].body["messages"][0]["content"]
    assert sent[1] == {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PIXEL_DATA}"}}


def test_count_tokens_counts_images_without_asking_a_model(bench: Gateway, upstream: FakeUpstream):
    image = {"type": "image", "source": {"type": "url", "url": "https://example.org/cat.png"}}
    client = _client(bench)
    text_only = client.messages.count_tokens(
        model="bench/core", messages=[{"role": "user", "content": "x" * 40}]
    )
    with_image = client.messages.count_tokens(
        model="bench/core",
        messages=[{"role": "user", "content": [{"type": "text", "text": "x" * 40}, image]}],
    )
    assert text_only.input_tokens == 11 and with_image.input_tokens == 11 + 2500
    assert upstream.requests == []


def test_count_tokens_for_an_unknown_collection_is_404_listing_collections(
    bench: Gateway, upstream: FakeUpstream
):
    response = _post(bench, "/v1/messages/count_tokens", {"model": "bench/nope", "messages": HI})
    assert "bench/core" in _anthropic_error(response, 404, "not_found_error")


def test_malformed_json_is_refused_in_the_anthropic_shape(bench: Gateway, upstream: FakeUpstream):
    response = httpx.post(
        f"{bench.url}/v1/messages", content=b'{"model":', headers={"Content-Type": "application/json"}
    )
    assert "JSON" in _anthropic_error(response, 400, "invalid_request_error")


def test_unknown_path_under_messages_is_404_in_the_anthropic_shape(bench: Gateway, upstream: FakeUpstream):
    _anthropic_error(_post(bench, "/v1/messages/batches", {"requests": []}), 404, "not_found_error")
