"""`:merged` in every API format: the merger's answer, with the merger named in the format's bench."""

from __future__ import annotations

import anthropic
import ollama
import pytest

from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream

HI = [{"role": "user", "content": "say hi"}]


@pytest.fixture
def merging(bench: Gateway, upstream: FakeUpstream) -> Gateway:
    upstream.serve("merger-model")
    bench.add_model("mg", "merger-model")
    bench.api("PATCH", "/api/collections/core", {"merger": "mg"}, expect=200)
    upstream.behave("merger-model", answer="the merged answer")
    return bench


def test_anthropic_merged(merging: Gateway, upstream: FakeUpstream):
    with anthropic.Anthropic(base_url=merging.url, api_key="unused-locally", max_retries=0) as client:
        message = client.messages.create(model="bench/core:merged", max_tokens=64, messages=HI)
    assert message.content[0].text.startswith("the merged answer")
    assert message.model_extra["bench"]["merger"]["alias"] == "mg"
    assert len(upstream.requests_for("merger-model")) == 1


def test_anthropic_merged_streamed(merging: Gateway, upstream: FakeUpstream):
    with (
        anthropic.Anthropic(base_url=merging.url, api_key="unused-locally", max_retries=0) as client,
        client.messages.stream(model="bench/core:merged", max_tokens=64, messages=HI) as stream,
    ):
        text = "".join(stream.text_stream)
    assert text.startswith("the merged answer")


def test_ollama_merged(merging: Gateway, upstream: FakeUpstream):
    with ollama.Client(host=merging.url) as client:
        reply = client.chat(model="bench/core:merged", messages=HI, stream=False)
    assert reply.message.content.startswith("the merged answer")
    assert len(upstream.requests_for("merger-model")) == 1


def test_ollama_merged_streamed(merging: Gateway, upstream: FakeUpstream):
    with ollama.Client(host=merging.url) as client:
        parts = client.chat(model="bench/core:merged", messages=HI, stream=True)
        assert "".join(p.message.content for p in parts).startswith("the merged answer")
