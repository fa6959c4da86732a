"""The cap on connections per host: requests over it wait in line for a connection to come back."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from panelgate.settings import Settings
from panelgate.upstream import KeyStore, Target, UpstreamClient
from panelgate.upstream.transport import HttpPool, TransportError
from tests.upstream.helpers import HELLO, seconds_from_now
from tests.upstream.raw_server import raw_server


@pytest.fixture
async def capped() -> AsyncIterator[HttpPool]:
    http = HttpPool(connect_timeout=5, keepalive_s=30, connections_per_host=2)
    yield http
    await http.aclose()


async def fetch(pool: HttpPool, url: str, n: str = "") -> int:
    async with pool.request("POST", url, {"x-n": n}, b"{}") as reply:
        while await reply.read():
            pass
    return reply.status


async def test_requests_over_the_cap_wait_and_never_open_more_connections(capped: HttpPool):
    async with raw_server(delay=0.05) as server:
        statuses = await asyncio.gather(*(fetch(capped, server.url) for _ in range(7)))
    assert statuses == [200] * 7
    assert server.most_open == 2 and server.connections == 2


async def test_waiting_requests_are_served_in_the_order_they_came():
    one = HttpPool(connect_timeout=2, keepalive_s=30, connections_per_host=1)
    try:
        async with raw_server(delay=0.02) as server:
            await asyncio.gather(*(fetch(one, server.url, str(n)) for n in range(5)))
    finally:
        await one.aclose()
    assert [n for _, n in server.answered] == ["0", "1", "2", "3", "4"] and server.connections == 1


async def test_waiting_for_a_connection_is_not_held_to_the_connect_timeout():
    hasty = HttpPool(connect_timeout=0.5, keepalive_s=30, connections_per_host=2)
    try:
        async with raw_server(delay=1.2) as server:  # each reply takes longer than the connect timeout
            statuses = await asyncio.gather(*(fetch(hasty, server.url) for _ in range(3)))
    finally:
        await hasty.aclose()
    assert statuses == [200] * 3 and server.connections == 2


async def test_a_request_that_gives_up_waiting_leaves_the_line(capped: HttpPool):
    async with raw_server(delay=0.3) as server:
        busy = [asyncio.create_task(fetch(capped, server.url, f"busy{n}")) for n in range(2)]
        await asyncio.sleep(0.05)
        with pytest.raises(TimeoutError):
            async with asyncio.timeout(0.1):
                await fetch(capped, server.url, "impatient")
        assert await fetch(capped, server.url, "patient") == 200
        await asyncio.gather(*busy)
    assert "impatient" not in [n for _, n in server.arrived] and server.connections == 2


async def test_a_connection_that_failed_gives_its_place_to_the_next_in_line():
    one = HttpPool(connect_timeout=2, keepalive_s=30, connections_per_host=1)
    try:
        async with raw_server(["drop"]) as server:
            first, second = await asyncio.gather(
                fetch(one, server.url, "first"), fetch(one, server.url, "second"), return_exceptions=True
            )
    finally:
        await one.aclose()
    assert isinstance(first, TransportError) and second == 200
    assert server.answered == [(2, "second")] and server.most_open == 1


async def test_the_setting_caps_the_clients_connections(tmp_path: Path):
    settings = Settings(home=tmp_path, upstream_connections_per_host=1)
    client = UpstreamClient(settings, KeyStore(tmp_path / "keys.json", {}))
    try:
        async with raw_server(delay=0.02) as server:
            target = Target(endpoint="up", base_url=f"{server.url}/v1", served_id="m1")
            results = await asyncio.gather(
                *(client.chat(target, HELLO, {}, deadline=seconds_from_now(5)) for _ in range(4))
            )
    finally:
        await client.aclose()
    assert [r.text for r in results] == ["hello"] * 4 and server.most_open == 1
