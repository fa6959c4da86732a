"""The loopback upstream other rooms test against answers like an OpenAI-compatible server."""

from __future__ import annotations

import httpx

from tests.support.upstream import FakeUpstream


def test_unstreamed_request_gets_one_whole_completion(upstream: FakeUpstream):
    upstream.behave("m1", answer="whole", usage=(3, 1))
    reply = httpx.post(f"{upstream.url}/chat/completions", json={"model": "m1", "messages": []}).json()
    assert reply["choices"][0]["message"]["content"] == "whole" and reply["usage"]["prompt_tokens"] == 3


def test_stream_without_usage_asked_has_no_usage_chunk(upstream: FakeUpstream):
    body = {"model": "m1", "messages": [], "stream": True}
    events = httpx.post(f"{upstream.url}/chat/completions", json=body).text.split("\n\n")
    assert events[-2] == "data: [DONE]" and not any('"usage"' in event for event in events)


def test_unknown_path_is_404(upstream: FakeUpstream):
    assert httpx.get(f"{upstream.url}/nowhere").status_code == 404


def test_fail_times_fails_that_many_calls_then_answers(upstream: FakeUpstream):
    upstream.behave("m1", status=503, fail_times=2)
    body = {"model": "m1", "messages": []}
    statuses = [httpx.post(f"{upstream.url}/chat/completions", json=body).status_code for _ in range(3)]
    assert statuses == [503, 503, 200]


def test_reset_forgets_requests_and_behaviours(upstream: FakeUpstream):
    upstream.behave("m1", status=500)
    httpx.post(f"{upstream.url}/chat/completions", json={"model": "m1", "messages": []})
    upstream.reset()
    reply = httpx.post(f"{upstream.url}/chat/completions", json={"model": "m1", "messages": []})
    assert reply.status_code == 200 and len(upstream.requests) == 1
