"""A panel over OpenAI legacy completions, with the official `openai` SDK as the client."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import openai
import pytest

from tests.http.helpers import sdk, sse_events
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream


@pytest.fixture
def client(bench: Gateway) -> Iterator[openai.OpenAI]:
    """The official OpenAI client pointed at the gateway (the bench arranged), closed afterwards."""
    with sdk(bench) as official:
        yield official


def _post(gateway: Gateway, body: dict[str, Any]) -> httpx.Response:
    return httpx.post(f"{gateway.url}/v1/completions", json=body, timeout=60)


def test_three_member_collection_answers_with_one_section_per_seat(
    bench: Gateway, upstream: FakeUpstream, client: openai.OpenAI
):
    completion = client.completions.create(model="bench/core", prompt="say hi")
    panel = completion.model_extra["bench"]
    choice = completion.choices[0]
    assert completion.id == f"cmpl-{panel['panel']}" and completion.object == "text_completion"
    assert completion.model == "bench/core" and choice.finish_reason == "stop" and choice.index == 0
    assert completion.usage is not None and completion.usage.prompt_tokens > 0
    assert (
        completion.usage.total_tokens == completion.usage.prompt_tokens + completion.usage.completion_tokens
    )
    assert [s["alias"] for s in panel["seats"]] == ["m1", "m2", "m3"]
    for seat in panel["seats"]:
        assert seat["call"] in choice.text and f"## member — {seat['alias']}" in choice.text
        assert f"answer from {seat['alias']}" in choice.text
    sent = [upstream.requests_for(m)[0].body["messages"] for m in ("m1", "m2", "m3")]
    assert sent == [[{"role": "user", "content": "say hi"}]] * 3


def test_one_prompt_in_a_list_is_accepted_and_the_model_echoed_as_sent(
    bench: Gateway, upstream: FakeUpstream, client: openai.OpenAI
):
    completion = client.completions.create(model="core:all", prompt=["say hi"])
    assert completion.model == "core:all" and completion.model_extra["bench"]["collection"] == "bench/core"
    assert upstream.requests_for("m1")[0].body["messages"] == [{"role": "user", "content": "say hi"}]


def test_streamed_fast_seat_section_arrives_before_slow_seat(
    bench: Gateway, upstream: FakeUpstream, client: openai.OpenAI
):
    upstream.behave("m1", delay=1.2)
    chunks = list(client.completions.create(model="bench/core", prompt="say hi", stream=True))
    pieces = [c.choices[0].text for c in chunks if c.choices[0].text]
    text = "".join(pieces)
    assert text.index("## member — m2") < text.index("## member — m1")
    assert text.index("## member — m3") < text.index("## member — m1")
    assert "**bench/core**" in pieces[0] and "## member" not in pieces[0], "the heading comes alone, first"
    assert all(c.object == "text_completion" for c in chunks)
    last = chunks[-1]
    assert last.choices[0].finish_reason == "stop"
    assert [s["alias"] for s in last.model_extra["bench"]["seats"]] == ["m1", "m2", "m3"]
    assert all("bench" not in (c.model_extra or {}) for c in chunks[:-1])


def test_stream_sends_keep_alives_while_seats_think(bench: Gateway, upstream: FakeUpstream):
    upstream.behave("m1", delay=1.6)
    raw = _post(bench, {"model": "bench/core", "prompt": "say hi", "stream": True}).text
    assert ": keep-alive" in raw
    assert sse_events(raw)[-1] == "[DONE]"


def test_merged_suffix_answers_with_the_mergers_text(
    bench: Gateway, upstream: FakeUpstream, client: openai.OpenAI
):
    upstream.serve("merger-model")
    bench.add_model("mg", "merger-model")
    bench.api("PATCH", "/api/collections/core", {"merger": "mg"}, expect=200)
    completion = client.completions.create(model="bench/core:merged", prompt="say hi")
    assert completion.model_extra["bench"]["reply"] == "merged"
    assert completion.choices[0].text.startswith("answer from merger-model")


@pytest.mark.parametrize(
    ("prompt", "said"),
    [(["one", "two"], "2 prompts"), ([1, 2, 3], "token ids"), ([[1, 2], [3]], "token ids")],
    ids=["several", "token-ids", "token-id-lists"],
)
def test_anything_but_one_prompt_string_is_refused(
    bench: Gateway, upstream: FakeUpstream, client: openai.OpenAI, prompt: Any, said: str
):
    with pytest.raises(openai.BadRequestError) as caught:
        client.completions.create(model="bench/core", prompt=prompt)
    assert said in caught.value.message and caught.value.body["param"] == "prompt"
    assert upstream.requests == []


def test_suffix_is_refused(bench: Gateway, upstream: FakeUpstream, client: openai.OpenAI):
    with pytest.raises(openai.BadRequestError) as caught:
        client.completions.create(model="bench/core", prompt="def f(", suffix="return x")
    assert "fill in the middle" in caught.value.message
    assert upstream.requests == []


def test_unknown_collection_is_404_listing_collections(
    bench: Gateway, upstream: FakeUpstream, client: openai.OpenAI
):
    with pytest.raises(openai.NotFoundError) as caught:
        client.completions.create(model="bench/nope", prompt="say hi")
    assert "bench/core" in caught.value.message and caught.value.body["code"] == "404"
    assert upstream.requests == []


def test_malformed_json_is_refused_in_the_openai_shape(bench: Gateway, upstream: FakeUpstream):
    response = httpx.post(
        f"{bench.url}/v1/completions", content=b'{"model":', headers={"Content-Type": "application/json"}
    )
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["type"] == "invalid_request_error" and error["code"] == "400" and "JSON" in error["message"]
