"""A host whose IPv6 address does not answer is reached on IPv4 at once (happy eyeballs).

This machine resolves `localhost` to 127.0.0.1 only, so the test name
`dual.test` is given two addresses by the event loop's resolver (the
stdlib's, stood in for the way a DNS server would answer): first an IPv6
one that swallows connection attempts without a word (a listener on ::1
whose queue is full, as a broken IPv6 route looks), then a reachable IPv4
one.
"""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import Iterator
from typing import Any

import pytest

from panelgate.upstream.transport import HttpPool, TransportError
from tests.upstream.raw_server import raw_server


@pytest.fixture
def silent_ipv6_port() -> Iterator[int]:
    """A port on ::1 where a new connection waits forever: its listener's queue is full."""
    listener = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
    listener.bind(("::1", 0))
    listener.listen(0)
    port = listener.getsockname()[1]
    held: list[socket.socket] = []
    try:
        for _ in range(16):
            attempt = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
            attempt.settimeout(0.2)
            try:
                attempt.connect(("::1", port))
            except TimeoutError:
                attempt.close()
                break
            held.append(attempt)
        else:
            raise AssertionError("could not fill the listener's queue")
        yield port
    finally:
        for sock in held:
            sock.close()
        listener.close()


def resolve_dual(monkeypatch: pytest.MonkeyPatch, ipv6: tuple[str, int], ipv4: tuple[str, int]) -> None:
    loop = asyncio.get_running_loop()
    resolver = loop.getaddrinfo

    async def getaddrinfo(host: Any, port: Any, **kwargs: Any) -> Any:
        if host != "dual.test":
            return await resolver(host, port, **kwargs)
        tcp = (socket.SOCK_STREAM, socket.IPPROTO_TCP, "")
        return [(socket.AF_INET6, *tcp, (*ipv6, 0, 0)), (socket.AF_INET, *tcp, ipv4)]

    monkeypatch.setattr(loop, "getaddrinfo", getaddrinfo)


async def test_host_whose_ipv6_address_is_silent_is_reached_on_ipv4_at_once(
    silent_ipv6_port: int, monkeypatch: pytest.MonkeyPatch
):
    pool = HttpPool(connect_timeout=5, keepalive_s=30)
    try:
        async with raw_server() as server:
            resolve_dual(monkeypatch, ("::1", silent_ipv6_port), ("127.0.0.1", server.port))
            started = time.monotonic()
            async with pool.request("GET", f"http://dual.test:{server.port}/", {}) as reply:
                assert reply.status == 200
            took = time.monotonic() - started
    finally:
        await pool.aclose()
    assert took < 1.0  # a quarter of a second, not the 5 s connect timeout
    assert server.connections == 1


async def test_host_none_of_whose_addresses_answers_is_one_error(monkeypatch: pytest.MonkeyPatch):
    async with raw_server() as gone:
        closed_port = gone.port
    resolve_dual(monkeypatch, ("::1", closed_port), ("127.0.0.1", closed_port))
    pool = HttpPool(connect_timeout=5, keepalive_s=30)
    try:
        started = time.monotonic()
        with pytest.raises(TransportError) as caught:
            async with pool.request("GET", f"http://dual.test:{closed_port}/", {}):
                pass
    finally:
        await pool.aclose()
    said = str(caught.value)
    assert "refused at [::1]" in said and "refused at 127.0.0.1" in said and not caught.value.timed_out
    assert time.monotonic() - started < 1.0
