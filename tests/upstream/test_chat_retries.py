"""Retries: only for failures that say "try again", only before text was shown, never past the deadline."""

from __future__ import annotations

import time

import pytest

from panelgate.upstream import UpstreamClient, UpstreamConnectError, UpstreamStatusError
from panelgate.upstream.client import Target
from tests.support.gateway import free_port
from tests.support.upstream import FakeUpstream
from tests.upstream.helpers import HELLO, Collected, seconds_from_now, target_on


async def test_server_error_then_success_is_retried(client: UpstreamClient, upstream: FakeUpstream):
    upstream.behave("m1", status=500, fail_times=1, answer="second time lucky")
    result = await client.chat(target_on(upstream), HELLO, {}, deadline=seconds_from_now(5))
    assert result.text == "second time lucky" and result.attempts == 2


async def test_rate_limit_waits_for_retry_after_then_succeeds(client: UpstreamClient, upstream: FakeUpstream):
    upstream.behave("m1", status=429, retry_after=1, fail_times=1)
    result = await client.chat(target_on(upstream), HELLO, {}, deadline=seconds_from_now(5))
    first, second = upstream.requests_for("m1")
    assert result.attempts == 2 and 0.95 <= second.at - first.at < 5


async def test_retry_after_past_the_deadline_fails_at_once(client: UpstreamClient, upstream: FakeUpstream):
    upstream.behave("m1", status=429, retry_after=30, fail_times=1)
    started = time.monotonic()
    with pytest.raises(UpstreamStatusError) as caught:
        await client.chat(target_on(upstream), HELLO, {}, deadline=seconds_from_now(5))
    assert time.monotonic() - started < 4, "a 30 s wait cannot fit a 5 s deadline, so none is begun"
    assert caught.value.kind == "capacity" and caught.value.retry_after == 30 and caught.value.attempts == 1


async def test_lasting_failure_gives_up_after_two_retries(client: UpstreamClient, upstream: FakeUpstream):
    upstream.behave("m1", status=503, retry_after=0)
    with pytest.raises(UpstreamStatusError) as caught:
        await client.chat(target_on(upstream), HELLO, {}, deadline=seconds_from_now(5))
    assert caught.value.attempts == 3 and len(upstream.requests_for("m1")) == 3


async def test_refusal_that_is_not_temporary_is_not_retried(client: UpstreamClient, upstream: FakeUpstream):
    upstream.behave("m1", status=400, error_message="messages: field required")
    with pytest.raises(UpstreamStatusError) as caught:
        await client.chat(target_on(upstream), HELLO, {}, deadline=seconds_from_now(5))
    assert caught.value.kind == "other" and caught.value.status == 400
    assert len(upstream.requests_for("m1")) == 1


async def test_error_after_text_was_shown_is_not_retried(client: UpstreamClient, upstream: FakeUpstream):
    upstream.behave("m1", answer="half and half", chunks=2, error_after=1, status=503)
    sink = Collected()
    with pytest.raises(UpstreamStatusError) as caught:
        await client.chat(target_on(upstream), HELLO, {}, deadline=seconds_from_now(5), on_text=sink)
    assert caught.value.partial_text == "half an" and sink.pieces == ["half an"]
    assert len(upstream.requests_for("m1")) == 1


async def test_unreachable_endpoint_is_a_connect_error_within_the_deadline(client: UpstreamClient):
    target = Target(endpoint="gone", base_url=f"http://127.0.0.1:{free_port()}/v1", served_id="m1")
    with pytest.raises(UpstreamConnectError) as caught:
        await client.chat(target, HELLO, {}, deadline=seconds_from_now(1))
    # waiting out the second backoff would have met the deadline and ended as a timeout instead
    assert caught.value.provider == "gone" and caught.value.kind == "other" and caught.value.attempts == 2
