"""A misbehaving endpoint becomes an `UpstreamError` with the right kind, at the latest at the deadline."""

from __future__ import annotations

import time

import pytest

from panelgate.settings import Settings
from panelgate.upstream import (
    KeyStore,
    UpstreamBadReply,
    UpstreamClient,
    UpstreamError,
    UpstreamStatusError,
    UpstreamTimeout,
)
from panelgate.upstream.client import Target
from tests.support.upstream import FakeUpstream
from tests.upstream.helpers import HELLO, Collected, seconds_from_now, target_on


async def test_hanging_endpoint_times_out_at_the_deadline(client: UpstreamClient, upstream: FakeUpstream):
    upstream.behave("m1", hang=True)
    started = time.monotonic()
    with pytest.raises(UpstreamTimeout) as caught:
        await client.chat(target_on(upstream), HELLO, {}, deadline=seconds_from_now(1))
    assert 0.9 <= time.monotonic() - started < 3 and caught.value.kind == "timeout"


async def test_stream_going_quiet_after_some_text_times_out_keeping_it(
    client: UpstreamClient, upstream: FakeUpstream
):
    upstream.behave("m1", answer="slow and steady", chunks=3, chunk_delay=0.6)
    with pytest.raises(UpstreamTimeout) as caught:
        await client.chat(target_on(upstream), HELLO, {}, deadline=seconds_from_now(1))
    assert caught.value.partial_text == "slow "


async def test_reset_mid_stream_is_a_bad_reply_keeping_the_partial_text(
    client: UpstreamClient, upstream: FakeUpstream
):
    upstream.behave("m1", answer="first second third", chunks=3, reset_after=2)
    sink = Collected()
    with pytest.raises(UpstreamBadReply) as caught:
        await client.chat(target_on(upstream), HELLO, {}, deadline=seconds_from_now(5), on_text=sink)
    assert caught.value.partial_text == "first second" == "".join(sink.pieces)
    assert len(upstream.requests_for("m1")) == 1


async def test_garbage_body_is_a_bad_reply(client: UpstreamClient, upstream: FakeUpstream):
    upstream.behave("m1", garbage=True)
    with pytest.raises(UpstreamBadReply) as caught:
        await client.chat(target_on(upstream), HELLO, {}, deadline=seconds_from_now(5))
    assert "neither JSON nor an event stream" in caught.value.message and caught.value.kind == "other"


async def test_missing_model_is_structural(client: UpstreamClient, upstream: FakeUpstream):
    upstream.behave("m1", status=404, error_message="The model `m1` does not exist")
    with pytest.raises(UpstreamStatusError) as caught:
        await client.chat(target_on(upstream), HELLO, {}, deadline=seconds_from_now(5))
    assert (caught.value.kind, caught.value.status, caught.value.provider) == ("structural", 404, "up")


async def test_missing_key_is_signin(client: UpstreamClient, upstream: FakeUpstream):
    upstream.behave("m1", require_key="sk-right-key-0001")
    with pytest.raises(UpstreamStatusError) as caught:
        await client.chat(target_on(upstream, key_name="up"), HELLO, {}, deadline=seconds_from_now(5))
    assert caught.value.kind == "signin" and caught.value.status == 401
    assert "authorization" not in upstream.requests_for("m1")[0].headers


async def test_redirect_is_refused_and_never_followed(client: UpstreamClient, upstream: FakeUpstream):
    upstream.behave("m1", redirect_to=f"{upstream.url}/chat/completions?token=abc")
    with pytest.raises(UpstreamStatusError) as caught:
        await client.chat(target_on(upstream), HELLO, {}, deadline=seconds_from_now(5))
    assert caught.value.status == 307 and caught.value.kind == "other"
    assert "redirect" in caught.value.message and "abc" not in caught.value.message
    assert len(upstream.requests) == 1


async def test_reply_over_the_cap_is_refused(keys: KeyStore, upstream: FakeUpstream, tmp_path):
    capped = UpstreamClient(Settings(home=tmp_path, upstream_max_reply_bytes=10_000), keys)
    upstream.behave("m1", answer="x" * 20_000, chunks=20)
    try:
        with pytest.raises(UpstreamBadReply) as caught:
            await capped.chat(target_on(upstream), HELLO, {}, deadline=seconds_from_now(5))
    finally:
        await capped.aclose()
    assert "10,000-byte cap" in caught.value.message and len(caught.value.partial_text) < 10_000


async def test_error_chunk_inside_the_stream_is_a_status_error(
    client: UpstreamClient, upstream: FakeUpstream
):
    upstream.behave(
        "m1", answer="a b", chunks=2, error_after=1, status=402, error_message="insufficient credits"
    )
    with pytest.raises(UpstreamStatusError) as caught:
        await client.chat(target_on(upstream), HELLO, {}, deadline=seconds_from_now(5))
    assert caught.value.kind == "paywalled" and caught.value.partial_text == "a "


async def test_api_other_than_chat_is_refused_without_a_call(client: UpstreamClient, upstream: FakeUpstream):
    target = Target(endpoint="up", base_url=upstream.url, served_id="m1", api="responses")
    with pytest.raises(UpstreamError) as caught:
        await client.chat(target, HELLO, {}, deadline=seconds_from_now(5))
    assert caught.value.kind == "structural" and "responses" in caught.value.message
    assert upstream.requests == []


async def test_base_url_that_is_not_http_fails_at_once_without_retries(client: UpstreamClient):
    target = Target(endpoint="odd", base_url="ftp://127.0.0.1/v1", served_id="m1")
    with pytest.raises(UpstreamError) as caught:
        await client.chat(target, HELLO, {}, deadline=seconds_from_now(5))
    assert type(caught.value) is UpstreamError and caught.value.attempts == 1
    assert "http(s) URL" in caught.value.message and caught.value.provider == "odd"
