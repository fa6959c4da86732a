"""A failure after the reply started reaches the client as an error, not a hang."""

from __future__ import annotations

import threading
import time

import anthropic
import ollama
import openai
import pytest
from google import genai
from google.genai import errors as genai_errors
from google.genai import types

from tests.http.helpers import sdk
from tests.support.gateway import Gateway, break_recording
from tests.support.upstream import FakeUpstream


def _break_while_seats_think(bench: Gateway, upstream: FakeUpstream) -> threading.Thread:
    """Break the store once the slow seat has been asked, so the panel is running but not recorded."""
    upstream.behave("m1", delay=2.0)

    def when_asked() -> None:
        while not upstream.requests_for("m1"):
            time.sleep(0.01)
        break_recording(bench)

    breaker = threading.Thread(target=when_asked, daemon=True)
    breaker.start()
    return breaker


def test_failure_after_the_stream_started_raises_in_the_openai_sdk(bench: Gateway, upstream: FakeUpstream):
    breaker = _break_while_seats_think(bench, upstream)
    stream = sdk(bench).chat.completions.create(
        model="bench/core", messages=[{"role": "user", "content": "hi"}], stream=True
    )
    pieces = []
    with pytest.raises(openai.APIError, match="gateway failed"):
        for chunk in stream:
            if chunk.choices and chunk.choices[0].delta.content:
                pieces.append(chunk.choices[0].delta.content)
    breaker.join()
    assert "**bench/core**" in pieces[0], "the reply had started before the failure"


def test_failure_before_a_whole_reply_is_a_500_in_the_openai_shape(bench: Gateway, upstream: FakeUpstream):
    breaker = _break_while_seats_think(bench, upstream)
    with pytest.raises(openai.InternalServerError, match="gateway failed"):
        sdk(bench).chat.completions.create(model="bench/core", messages=[{"role": "user", "content": "hi"}])
    breaker.join()


def test_failure_after_the_stream_started_raises_in_the_anthropic_sdk(bench: Gateway, upstream: FakeUpstream):
    breaker = _break_while_seats_think(bench, upstream)
    pieces = []
    with (
        anthropic.Anthropic(base_url=bench.url, api_key="unused-locally", max_retries=0) as client,
        pytest.raises(anthropic.APIError, match="gateway failed"),
        client.messages.stream(
            model="bench/core", max_tokens=64, messages=[{"role": "user", "content": "hi"}]
        ) as stream,
    ):
        for text in stream.text_stream:
            pieces.append(text)
    breaker.join()
    assert "**bench/core**" in pieces[0]


def test_failure_after_the_stream_started_raises_in_the_ollama_client(bench: Gateway, upstream: FakeUpstream):
    breaker = _break_while_seats_think(bench, upstream)
    pieces = []
    with ollama.Client(host=bench.url) as client, pytest.raises(ollama.ResponseError, match="gateway failed"):
        for part in client.chat(
            model="bench/core", messages=[{"role": "user", "content": "hi"}], stream=True
        ):
            pieces.append(part.message.content)
    breaker.join()
    assert "**bench/core**" in "".join(pieces)


def test_failure_after_the_stream_started_raises_in_the_responses_api(bench: Gateway, upstream: FakeUpstream):
    breaker = _break_while_seats_think(bench, upstream)
    kinds = []
    with pytest.raises(openai.APIError, match="gateway failed"):
        for event in sdk(bench).responses.create(model="bench/core", input="hi", stream=True):
            kinds.append(event.type)
    breaker.join()
    assert "response.output_text.delta" in kinds, "the reply had started before the failure"


def test_failure_after_the_stream_started_raises_in_completions(bench: Gateway, upstream: FakeUpstream):
    breaker = _break_while_seats_think(bench, upstream)
    pieces = []
    with pytest.raises(openai.APIError, match="gateway failed"):
        for chunk in sdk(bench).completions.create(model="bench/core", prompt="hi", stream=True):
            pieces.append(chunk.choices[0].text if chunk.choices else "")
    breaker.join()
    assert "**bench/core**" in "".join(pieces)


def test_failure_after_the_stream_started_raises_in_the_genai_sdk(bench: Gateway, upstream: FakeUpstream):
    breaker = _break_while_seats_think(bench, upstream)
    options = types.HttpOptions(base_url=bench.url, api_version="v1beta")
    pieces = []
    with (
        genai.Client(api_key="unused-locally", http_options=options) as client,
        pytest.raises(genai_errors.APIError, match="gateway failed"),
    ):
        for chunk in client.models.generate_content_stream(model="bench/core", contents="hi"):
            pieces.append(chunk.text or "")
    breaker.join()
    assert "**bench/core**" in "".join(pieces)
