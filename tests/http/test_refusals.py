"""Every refusal in the OpenAI error shape, before any seat is asked."""

from __future__ import annotations

from typing import Any

import httpx
import openai
import pytest

from tests.http.helpers import ask, hello, sdk
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream


def _error(response: httpx.Response, status: int) -> str:
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert set(error) >= {"message", "type", "code"}
    return str(error["message"])


def test_no_collection_named_is_400_listing_collections(bench: Gateway, upstream: FakeUpstream):
    message = _error(ask(bench, hello("")), 400)
    assert "bench/core" in message and "three models" in message


def test_unknown_collection_is_404_listing_collections(bench: Gateway, upstream: FakeUpstream):
    with pytest.raises(openai.NotFoundError) as caught:
        sdk(bench).chat.completions.create(model="bench/nope", messages=[{"role": "user", "content": "x"}])
    assert "bench/core" in str(caught.value)
    assert upstream.requests == []


def test_unknown_reply_suffix_is_an_unknown_collection(bench: Gateway, upstream: FakeUpstream):
    _error(ask(bench, hello("bench/core:both")), 404)


def test_prompt_too_large_is_413_naming_members_and_windows(bench: Gateway, upstream: FakeUpstream):
    bench.api("PATCH", "/api/models/m1", {"context_window": 1000}, expect=200)
    bench.api("PATCH", "/api/models/m2", {"context_window": 2000}, expect=200)
    message = _error(
        ask(bench, {"model": "bench/core", "messages": [{"role": "user", "content": "x" * 10_000}]}), 413
    )
    assert "m1" in message and "1,000" in message and "m2" in message and "2,000" in message
    assert "m3" not in message
    assert upstream.requests == []


def test_tools_offered_to_a_collection_that_refuses_them_are_refused_pointing_to_route(
    bench: Gateway, upstream: FakeUpstream
):
    bench.api("PATCH", "/api/collections/core", {"offered_tools": "refuse"}, expect=200)
    tools: Any = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]
    with pytest.raises(openai.BadRequestError) as caught:
        sdk(bench).chat.completions.create(
            model="bench/core", messages=[{"role": "user", "content": "x"}], tools=tools
        )
    assert "bench/core:route" in str(caught.value) and "refuses tools" in str(caught.value)
    assert upstream.requests == []


def test_tool_history_in_a_panel_is_refused(bench: Gateway, upstream: FakeUpstream):
    messages = [
        {"role": "user", "content": "x"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "42"},
    ]
    assert ":route" in _error(ask(bench, {"model": "bench/core", "messages": messages}), 400)


def test_legacy_functions_are_refused(bench: Gateway, upstream: FakeUpstream):
    _error(ask(bench, hello(functions=[{"name": "f", "parameters": {}}])), 400)


def test_malformed_json_is_400(bench: Gateway, upstream: FakeUpstream):
    response = httpx.post(
        f"{bench.url}/v1/chat/completions",
        content=b'{"model": "bench/core",',
        headers={"Content-Type": "application/json"},
    )
    assert "JSON" in _error(response, 400)


def test_json_that_is_not_an_object_is_400(bench: Gateway, upstream: FakeUpstream):
    response = httpx.post(
        f"{bench.url}/v1/chat/completions", content=b"[1, 2]", headers={"Content-Type": "application/json"}
    )
    _error(response, 400)


def test_non_json_content_type_is_415(bench: Gateway, upstream: FakeUpstream):
    response = httpx.post(
        f"{bench.url}/v1/chat/completions",
        content=b'{"model": "bench/core"}',
        headers={"Content-Type": "text/plain"},
    )
    _error(response, 415)


def test_body_over_20_mb_is_413_advising_image_urls(bench: Gateway, upstream: FakeUpstream):
    big = b'{"model": "bench/core", "messages": [{"role": "user", "content": "' + b"x" * 20_000_001 + b'"}]}'
    response = httpx.post(
        f"{bench.url}/v1/chat/completions",
        content=big,
        headers={"Content-Type": "application/json"},
        timeout=60,
    )
    assert "URL" in _error(response, 413)


@pytest.mark.parametrize("reply", ["both", 3, None])
def test_bad_bench_reply_is_400(bench: Gateway, upstream: FakeUpstream, reply: object):
    body = hello(bench={"reply": reply}) if reply is not None else hello(bench="merged")
    _error(ask(bench, body), 400)


@pytest.mark.parametrize("nominees", ["m1", [1], ["nobody"]])
def test_bad_with_is_400(bench: Gateway, upstream: FakeUpstream, nominees: object):
    bench.gateway_settings(max_calls=5, max_explorers=2)
    _error(ask(bench, hello(**{"with": nominees})), 400)


def test_with_is_refused_when_the_collection_has_no_explorer_seats(bench: Gateway, upstream: FakeUpstream):
    upstream.serve("m4")
    bench.add_model("m4")
    assert "explorer" in _error(ask(bench, hello(**{"with": ["m4"]})), 400)


@pytest.mark.parametrize(
    "part",
    [
        {"type": "file", "file": {"file_data": "data:application/pdf;base64,JVBERi0=", "filename": "a.pdf"}},
        {"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}},
    ],
)
def test_pdf_and_audio_parts_are_refused(bench: Gateway, upstream: FakeUpstream, part: dict):
    body = {
        "model": "bench/core",
        "messages": [{"role": "user", "content": [{"type": "text", "text": "x"}, part]}],
    }
    _error(ask(bench, body), 400)
    assert upstream.requests == []
