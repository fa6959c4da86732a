"""A kept-alive connection the server dropped as a request went out: sent again at once, and only then."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from panelgate.settings import Settings
from panelgate.upstream import KeyStore, Target, UpstreamClient
from panelgate.upstream.transport import HttpPool, TransportError
from tests.upstream.helpers import HELLO, seconds_from_now
from tests.upstream.raw_server import raw_server


@pytest.fixture
async def pool() -> AsyncIterator[HttpPool]:
    http = HttpPool(connect_timeout=2, keepalive_s=30)
    yield http
    await http.aclose()


async def fetch(pool: HttpPool, url: str, n: str) -> tuple[int, bytes]:
    parts = []
    async with pool.request("POST", url, {"x-n": n}, b"{}") as reply:
        while data := await reply.read():
            parts.append(data)
    return reply.status, b"".join(parts)


@pytest.mark.parametrize("drop", ["drop", "reset"])
async def test_request_on_a_kept_alive_connection_the_server_dropped_goes_again_on_a_new_one(
    pool: HttpPool, drop: str
):
    async with raw_server(["answer", drop]) as server:
        assert (await fetch(pool, server.url, "first"))[0] == 200
        started = time.monotonic()
        status, body = await fetch(pool, server.url, "second")
        took = time.monotonic() - started
    assert status == 200 and b"hello" in body
    assert server.answered == [(1, "first"), (2, "second")]  # answered once, on a new connection
    assert server.connections == 2
    assert took < 0.3  # at once: no backoff


@pytest.mark.parametrize("cut", ["head-only", "half-head"], ids=["after-its-head", "inside-its-status-line"])
async def test_reply_cut_once_it_began_is_not_sent_again(pool: HttpPool, cut: str):
    async with raw_server(["answer", cut]) as server:
        await fetch(pool, server.url, "first")
        with pytest.raises(TransportError):
            await fetch(pool, server.url, "second")
    assert server.arrived == [(1, "first"), (1, "second")] and server.connections == 1


async def test_new_connection_dropped_without_a_word_is_not_sent_again(pool: HttpPool):
    async with raw_server(["drop"]) as server:
        with pytest.raises(TransportError):
            await fetch(pool, server.url, "only")
    assert server.arrived == [(1, "only")] and server.connections == 1


async def test_a_second_drop_on_the_new_connection_reaches_the_caller(pool: HttpPool):
    async with raw_server(["answer", "drop"], ["drop"]) as server:
        await fetch(pool, server.url, "first")
        with pytest.raises(TransportError):
            await fetch(pool, server.url, "second")
    assert server.arrived == [(1, "first"), (1, "second"), (2, "second")] and server.connections == 2


async def test_resent_chat_counts_as_one_attempt(tmp_path: Path):
    client = UpstreamClient(Settings(home=tmp_path), KeyStore(tmp_path / "keys.json", {}))
    try:
        async with raw_server(["answer", "reset"]) as server:
            target = Target(endpoint="up", base_url=f"{server.url}/v1", served_id="m1")
            await client.chat(target, HELLO, {}, deadline=seconds_from_now(5))
            result = await client.chat(target, HELLO, {}, deadline=seconds_from_now(5))
    finally:
        await client.aclose()
    assert result.text == "hello" and result.attempts == 1
    assert server.connections == 2 and len(server.answered) == 2
