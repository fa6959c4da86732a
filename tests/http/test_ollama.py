"""A panel over the Ollama API, with the official `ollama` client where it can see the answer.

The client drops fields it does not know (`bench`), so assertions on the
`bench` field read the raw reply through httpx.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator
from typing import Any

import httpx
import ollama
import orjson
import pytest

from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream

JPEG = b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"
HI = [{"role": "user", "content": "say hi"}]


@pytest.fixture
def client(bench: Gateway) -> Iterator[ollama.Client]:
    """The official Ollama client pointed at the gateway (the bench arranged)."""
    with ollama.Client(host=bench.url, timeout=30) as official:
        yield official


def _post(gateway: Gateway, path: str, body: dict[str, Any]) -> httpx.Response:
    return httpx.post(f"{gateway.url}{path}", json=body, timeout=30)


def _lines(response: httpx.Response) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in response.text.splitlines()]


def test_chat_answers_with_one_section_per_seat(
    bench: Gateway, upstream: FakeUpstream, client: ollama.Client
):
    reply = client.chat(
        model="bench/core", messages=[{"role": "system", "content": "be brief"}, *HI], stream=False
    )
    assert reply.model == "bench/core" and reply.done and reply.done_reason == "stop"
    assert reply.message.role == "assistant"
    for alias in ("m1", "m2", "m3"):
        assert (
            f"## member — {alias}" in reply.message.content
            and f"answer from {alias}" in reply.message.content
        )
    assert reply.eval_count and reply.prompt_eval_count and reply.total_duration
    received = [upstream.requests_for(m)[0].body["messages"] for m in ("m1", "m2", "m3")]
    assert received == [[{"role": "system", "content": "be brief"}, *HI]] * 3


def test_whole_chat_reply_carries_the_bench_field_naming_every_seat(bench: Gateway, upstream: FakeUpstream):
    reply = _post(bench, "/api/chat", {"model": "bench/core", "messages": HI, "stream": False}).json()
    panel = reply["bench"]
    assert [s["alias"] for s in panel["seats"]] == ["m1", "m2", "m3"]
    assert all(s["call"] in reply["message"]["content"] for s in panel["seats"])
    assert reply["load_duration"] == 0 and reply["eval_duration"] == reply["total_duration"] > 0


def test_streamed_chat_delivers_a_fast_seat_before_a_slow_one(
    bench: Gateway, upstream: FakeUpstream, client: ollama.Client
):
    upstream.behave("m1", delay=1.2)
    pieces, last = [], None
    for part in client.chat(model="bench/core", messages=HI, stream=True):
        last = part
        if part.message.content:
            pieces.append(part.message.content)
    text = "".join(pieces)
    assert text.index("## member — m2") < text.index("## member — m1")
    assert text.index("## member — m3") < text.index("## member — m1")
    assert "**bench/core**" in pieces[0] and "## member" not in pieces[0], "the heading comes alone, first"
    assert last is not None and last.done and last.done_reason == "stop"


def test_chat_streams_ndjson_by_default_with_keep_alive_lines(bench: Gateway, upstream: FakeUpstream):
    upstream.behave("m1", delay=1.2)
    response = _post(bench, "/api/chat", {"model": "bench/core", "messages": HI})
    assert response.headers["content-type"].startswith("application/x-ndjson")
    lines = _lines(response)
    assert [line["done"] for line in lines].count(True) == 1 and lines[-1]["done"] is True
    keep_alives = [line for line in lines[:-1] if line["message"]["content"] == ""]
    assert keep_alives, "a slow seat must be covered by empty keep-alive lines"
    assert all("bench" not in line for line in lines[:-1])
    assert [s["alias"] for s in lines[-1]["bench"]["seats"]] == ["m1", "m2", "m3"]


def test_generate_asks_every_seat_with_the_system_text_and_prompt(
    bench: Gateway, upstream: FakeUpstream, client: ollama.Client
):
    reply = client.generate(model="bench/core", system="be brief", prompt="say hi")
    assert reply.done and all(f"answer from {m}" in reply.response for m in ("m1", "m2", "m3"))
    expected = [{"role": "system", "content": "be brief"}, *HI]
    assert [upstream.requests_for(m)[0].body["messages"] for m in ("m1", "m2", "m3")] == [expected] * 3


def test_streamed_generate_ends_with_a_done_line_carrying_bench(
    bench: Gateway, upstream: FakeUpstream, client: ollama.Client
):
    parts = list(client.generate(model="bench/core", prompt="say hi", stream=True))
    assert parts[-1].done and "## member — m3" in "".join(p.response or "" for p in parts)
    raw = _lines(_post(bench, "/api/generate", {"model": "bench/core", "prompt": "say hi"}))
    assert raw[-1]["done"] and raw[-1]["response"] == "" and len(raw[-1]["bench"]["seats"]) == 3


def test_latest_tag_is_stripped_and_the_model_echoed_as_sent(
    bench: Gateway, upstream: FakeUpstream, client: ollama.Client
):
    reply = client.chat(model="bench/core:latest", messages=HI, stream=False)
    assert reply.model == "bench/core:latest" and "## member — m1" in reply.message.content


def test_merged_suffix_answers_with_the_mergers_reply(
    bench: Gateway, upstream: FakeUpstream, client: ollama.Client
):
    bench.add_model("mg", "merger-model")
    bench.api("PATCH", "/api/collections/core", {"merger": "mg"}, expect=200)
    reply = client.chat(model="bench/core:merged", messages=HI, stream=False)
    assert reply.message.content.startswith("answer from merger-model")


def test_image_reaches_only_seeing_seats_with_its_type_read_from_the_bytes(
    bench: Gateway, upstream: FakeUpstream, client: ollama.Client
):
    bench.api("PATCH", "/api/models/m1", {"vision": True}, expect=200)
    bench.api("PATCH", "/api/models/m3", {"vision": False}, expect=200)
    message = {"role": "user", "content": "what is this?", "images": [JPEG]}
    client.chat(model="bench/core", messages=[message], stream=False)
    sent = upstream.requests_for("m1")[0].body["messages"][0]["content"]
    assert sent[1]["image_url"]["url"] == "data:image/jpeg;base64," + base64.b64encode(JPEG).decode()
    assert upstream.requests_for("m2") == [] and upstream.requests_for("m3") == []


def test_unknown_collection_is_404_in_ollama_shape_listing_collections(
    bench: Gateway, upstream: FakeUpstream, client: ollama.Client
):
    with pytest.raises(ollama.ResponseError) as caught:
        client.chat(model="bench/nope", messages=HI, stream=False)
    assert caught.value.status_code == 404 and "bench/core" in caught.value.error
    raw = _post(bench, "/api/chat", {"model": "bench/nope", "messages": HI})
    assert raw.status_code == 404 and isinstance(raw.json()["error"], str)
    assert upstream.requests == []


def test_tools_in_a_panel_are_refused_pointing_to_route(
    bench: Gateway, upstream: FakeUpstream, client: ollama.Client
):
    tools = [
        {"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {}}}}
    ]
    with pytest.raises(ollama.ResponseError) as caught:
        client.chat(model="bench/core", messages=HI, tools=tools, stream=False)
    assert caught.value.status_code == 400 and "bench/core:route" in caught.value.error
    assert upstream.requests == []


def test_generate_with_a_stored_context_is_refused(
    bench: Gateway, upstream: FakeUpstream, client: ollama.Client
):
    with pytest.raises(ollama.ResponseError) as caught:
        client.generate(model="bench/core", prompt="and then?", context=[1, 2, 3])
    assert caught.value.status_code == 400 and "context" in caught.value.error
    assert upstream.requests == []


def test_list_shows_every_collection_in_three_reply_modes(
    bench: Gateway, upstream: FakeUpstream, client: ollama.Client
):
    listed = {m.model: m for m in client.list().models}
    assert set(listed) == {"bench/core", "bench/core:merged", "bench/core:route"}
    core = listed["bench/core"]
    assert core.details is not None and list(core.details.families or []) == ["m1", "m2", "m3"]
    assert core.modified_at is not None and core.digest and len(core.digest) == 64


def test_show_gives_the_smallest_window_and_vision_only_when_every_member_sees(
    bench: Gateway, upstream: FakeUpstream, client: ollama.Client
):
    for alias, window in (("m1", 32768), ("m2", 8192), ("m3", 16384)):
        bench.api("PATCH", f"/api/models/{alias}", {"context_window": window, "vision": True}, expect=200)
    shown = client.show("bench/core:latest")
    assert shown.modelinfo is not None and shown.modelinfo["bench.context_length"] == 8192
    assert shown.capabilities == ["completion", "vision"] and "m1, m2, m3" in (shown.modelfile or "")
    bench.api("PATCH", "/api/models/m3", {"vision": False}, expect=200)
    assert client.show("bench/core").capabilities == ["completion"]


def test_show_of_an_unknown_model_is_404(bench: Gateway, upstream: FakeUpstream, client: ollama.Client):
    with pytest.raises(ollama.ResponseError) as caught:
        client.show("bench/nope")
    assert caught.value.status_code == 404 and "bench/core" in caught.value.error


def test_version_answers_as_ollama(bench: Gateway, upstream: FakeUpstream):
    assert httpx.get(f"{bench.url}/api/version").json() == {"version": "0.12.0"}


def test_admin_routes_under_api_keep_the_admin_shape(bench: Gateway, upstream: FakeUpstream):
    assert httpx.get(f"{bench.url}/api/status").status_code == 200
    missing = httpx.get(f"{bench.url}/api/nothing-here")
    assert missing.status_code == 404 and set(missing.json()["error"]) == {"message", "field"}
    wrong_method = httpx.get(f"{bench.url}/api/chat")
    assert wrong_method.status_code == 405 and isinstance(wrong_method.json()["error"], str)
