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
    parts = (reply["load_duration"], reply["prompt_eval_duration"], reply["eval_duration"])
    assert sum(parts) == reply["total_duration"] and min(parts[1:]) >= 1_000_000


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
    upstream.serve("merger-model")
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


def test_tools_offered_to_a_panel_are_left_out(bench: Gateway, upstream: FakeUpstream, client: ollama.Client):
    tools = [
        {"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {}}}}
    ]
    reply = client.chat(model="bench/core", messages=HI, tools=tools, stream=False)
    assert "answer from m3" in reply.message.content and not reply.message.tool_calls
    assert len(upstream.requests) == 3 and all("tools" not in r.body for r in upstream.requests)


def test_tool_results_in_a_panel_are_refused_pointing_to_route(
    bench: Gateway, upstream: FakeUpstream, client: ollama.Client
):
    call = {"function": {"name": "f", "arguments": {}}}
    called = {"role": "assistant", "content": "", "tool_calls": [call]}
    history = [*HI, called, {"role": "tool", "content": "42", "tool_name": "f"}]
    with pytest.raises(ollama.ResponseError) as caught:
        client.chat(model="bench/core", messages=history, stream=False)
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


def test_ps_lists_every_collection_as_a_loaded_model(
    bench: Gateway, upstream: FakeUpstream, client: ollama.Client
):
    bench.api("PATCH", "/api/models/m2", {"context_window": 8192}, expect=200)
    running = {m.model: m for m in client.ps().models}
    assert set(running) == {"bench/core", "bench/core:merged", "bench/core:route"}
    core = running["bench/core"]
    assert core.details is not None and list(core.details.families or []) == ["m1", "m2", "m3"]
    assert core.expires_at is not None and core.size_vram == 0 and core.context_length == 8192
    assert core.digest == {m.model: m for m in client.list().models}["bench/core"].digest


@pytest.mark.parametrize("content_type", [None, "application/x-www-form-urlencoded"])
def test_a_json_body_sent_without_a_json_type_is_read_as_ollama_does(
    bench: Gateway, upstream: FakeUpstream, content_type: str | None
):
    """Ollama's own examples post with `curl -d`: curl's form type, or none at all."""
    headers = {} if content_type is None else {"Content-Type": content_type}
    body = orjson.dumps({"model": "bench/core", "messages": HI, "stream": False})
    reply = httpx.post(f"{bench.url}/api/chat", content=body, headers=headers, timeout=30)
    assert reply.status_code == 200, reply.text
    assert [s["alias"] for s in reply.json()["bench"]["seats"]] == ["m1", "m2", "m3"]
    shown = httpx.post(f"{bench.url}/api/show", content=b'{"model": "bench/core"}', headers=headers)
    assert shown.status_code == 200 and shown.json()["capabilities"] == ["completion"]


@pytest.mark.parametrize("content_type", [None, "application/x-www-form-urlencoded"])
def test_a_curl_generate_without_a_json_type_gets_a_panel(
    bench: Gateway, upstream: FakeUpstream, content_type: str | None
):
    """`curl http://.../api/generate -d '{...}'`, as Ollama's README has it."""
    headers = {"User-Agent": "curl/8.5.0", "Accept": "*/*"}
    if content_type is not None:
        headers["Content-Type"] = content_type
    body = orjson.dumps({"model": "bench/core", "prompt": "say hi", "stream": False})
    reply = httpx.post(f"{bench.url}/api/generate", content=body, headers=headers, timeout=30)
    assert reply.status_code == 200, reply.text
    assert "answer from m3" in reply.json()["response"]
    assert [s["alias"] for s in reply.json()["bench"]["seats"]] == ["m1", "m2", "m3"]


def test_a_body_without_a_json_type_that_is_not_json_is_415(bench: Gateway, upstream: FakeUpstream):
    refused = httpx.post(f"{bench.url}/api/chat", content=b"model=bench/core", timeout=30)
    assert refused.status_code == 415 and "application/json" in refused.json()["error"]
    assert upstream.requests == []
