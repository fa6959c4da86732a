"""The lean HTTP/1.1 client: kept-alive reuse, body framings, refusals, TLS, against raw scripted sockets."""

from __future__ import annotations

import asyncio
import contextlib
import ssl
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import trustme

from panelgate.upstream.transport import BadRequest, HttpPool, TransportError

HELLO_BY_LENGTH = b"HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nhello"
HELLO_CHUNKED = b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2\r\nhe\r\n3\r\nllo\r\n0\r\n\r\n"


@dataclass
class Scripted:
    """A raw server on 127.0.0.1 answering each request with the next scripted reply.

    A reply is `(bytes, close)`: the bytes are written as they are, then the
    connection is closed when `close` is true. `None` closes without a word.
    """

    replies: list[tuple[bytes, bool] | None]
    connections: int = 0
    closed_by_client: int = 0
    requests: list[bytes] = field(default_factory=list)
    port: int = 0
    writers: list[asyncio.StreamWriter] = field(default_factory=list)

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        self.writers.append(writer)
        try:
            while True:
                try:
                    head = await reader.readuntil(b"\r\n\r\n")
                except asyncio.IncompleteReadError:
                    self.closed_by_client += 1
                    return
                length = next(
                    (int(line.split(b":")[1]) for line in head.lower().split(b"\r\n")
                     if line.startswith(b"content-length:")),
                    0,
                )  # fmt: skip
                self.requests.append(head + await reader.readexactly(length))
                reply = self.replies.pop(0)
                if reply is None:
                    return
                writer.write(reply[0])
                await writer.drain()
                if reply[1]:
                    return
        except ConnectionError:
            return
        finally:
            writer.close()


@contextlib.asynccontextmanager
async def scripted(
    *replies: tuple[bytes, bool] | None, tls: ssl.SSLContext | None = None
) -> AsyncIterator[Scripted]:
    script = Scripted(list(replies))
    server = await asyncio.start_server(script.serve, "127.0.0.1", 0, ssl=tls)
    script.port = server.sockets[0].getsockname()[1]
    async with server:
        yield script
        for writer in script.writers:  # let every handler end before the loop does
            writer.close()
        await asyncio.sleep(0.01)


@pytest.fixture
async def pool() -> AsyncIterator[HttpPool]:
    http = HttpPool(connect_timeout=2, keepalive_s=30)
    yield http
    await http.aclose()


async def fetch(pool: HttpPool, url: str) -> tuple[int, bytes]:
    async with pool.request("POST", url, {"content-type": "application/json"}, b"{}") as reply:
        parts = []
        while data := await reply.read():
            parts.append(data)
    return reply.status, b"".join(parts)


async def test_kept_alive_connection_carries_the_next_request(pool: HttpPool):
    async with scripted((HELLO_BY_LENGTH, False), (HELLO_CHUNKED, False)) as server:
        url = f"http://127.0.0.1:{server.port}/v1/chat/completions"
        assert [await fetch(pool, url), await fetch(pool, url)] == [(200, b"hello")] * 2
    assert server.connections == 1
    assert server.requests[0].startswith(b"POST /v1/chat/completions HTTP/1.1\r\n")
    assert f"host: 127.0.0.1:{server.port}\r\n".encode() in server.requests[0]


async def test_body_ended_by_the_server_closing_is_read_and_that_connection_not_reused(pool: HttpPool):
    async with scripted((b"HTTP/1.1 200 OK\r\n\r\nuntil the end", True), (HELLO_BY_LENGTH, False)) as server:
        url = f"http://127.0.0.1:{server.port}/"
        assert await fetch(pool, url) == (200, b"until the end")
        assert await fetch(pool, url) == (200, b"hello")
    assert server.connections == 2


async def test_connection_left_before_its_body_ended_is_not_reused(pool: HttpPool):
    partial = b"HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nhel"
    async with scripted((partial, False), (HELLO_BY_LENGTH, False)) as server:
        url = f"http://127.0.0.1:{server.port}/"
        async with pool.request("GET", url, {}) as reply:
            assert reply.status == 200
        assert await fetch(pool, url) == (200, b"hello")
    assert server.connections == 2


async def test_connection_cut_mid_body_hands_over_what_came_then_fails(pool: HttpPool):
    cut = b"HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nhel"
    async with (
        scripted((cut, True)) as server,
        pool.request("GET", f"http://127.0.0.1:{server.port}/", {}) as reply,
    ):
        assert await reply.read() == b"hel"
        with pytest.raises(TransportError):
            await reply.read()


async def test_large_body_read_slowly_arrives_whole_and_the_connection_is_reused(pool: HttpPool):
    body = bytes(range(256)) * (4 * 4096)  # 4 MiB: reading pauses while it waits for the reader
    large = b"HTTP/1.1 200 OK\r\ncontent-length: %d\r\n\r\n" % len(body) + body
    async with scripted((large, False), (HELLO_BY_LENGTH, False)) as server:
        url = f"http://127.0.0.1:{server.port}/"
        parts = []
        async with pool.request("GET", url, {}) as reply:
            while data := await reply.read():
                parts.append(data)
                await asyncio.sleep(0.02)
        assert b"".join(parts) == body
        assert await fetch(pool, url) == (200, b"hello")
    assert server.connections == 1


async def test_idle_connection_is_closed_after_the_keepalive_time():
    brief = HttpPool(connect_timeout=2, keepalive_s=0.1)
    try:
        async with scripted((HELLO_BY_LENGTH, False), (HELLO_BY_LENGTH, False)) as server:
            url = f"http://127.0.0.1:{server.port}/"
            await fetch(brief, url)
            await asyncio.sleep(0.3)
            assert server.closed_by_client == 1
            assert await fetch(brief, url) == (200, b"hello") and server.connections == 2
    finally:
        await brief.aclose()


async def test_connection_the_server_closed_while_idle_is_replaced(pool: HttpPool):
    async with scripted((HELLO_BY_LENGTH, True), (HELLO_BY_LENGTH, False)) as server:
        url = f"http://127.0.0.1:{server.port}/"
        await fetch(pool, url)
        await asyncio.sleep(0.05)
        assert await fetch(pool, url) == (200, b"hello") and server.connections == 2


async def test_error_status_comes_back_with_its_headers_and_no_redirect_is_followed(pool: HttpPool):
    moved = b"HTTP/1.1 307 Temporary Redirect\r\nLocation: http://elsewhere/\r\ncontent-length: 0\r\n\r\n"
    async with (
        scripted((moved, False)) as server,
        pool.request("GET", f"http://127.0.0.1:{server.port}/", {}) as reply,
    ):
        assert (reply.status, reply.reason) == (307, "Temporary Redirect")
        assert reply.headers["location"] == "http://elsewhere/"
    assert len(server.requests) == 1


@pytest.mark.parametrize(
    "reply",
    [
        (b"SSH-2.0-OpenSSH_9.2\r\n\r\n", True),
        None,
        (b"HTTP/1.1 200 OK\r\ncontent-encoding: gzip\r\ncontent-length: 3\r\n\r\nabc", False),
        (b"HTTP/1.1 200 OK\r\nx-padding: " + b"x" * 300_000 + b"\r\n\r\n", True),
    ],
    ids=["not-http", "closed-at-once", "compressed", "huge-head"],
)
async def test_reply_that_is_no_usable_http_fails_before_its_head(
    pool: HttpPool, reply: tuple[bytes, bool] | None
):
    async with scripted(reply) as server:
        with pytest.raises(TransportError) as caught:
            await fetch(pool, f"http://127.0.0.1:{server.port}/")
    assert not isinstance(caught.value, BadRequest) and str(caught.value)


async def test_refused_connection_is_a_transport_error(pool: HttpPool):
    async with scripted() as server:
        port = server.port
    with pytest.raises(TransportError) as caught:
        await fetch(pool, f"http://127.0.0.1:{port}/")
    assert not caught.value.timed_out


@pytest.mark.parametrize("url", ["ftp://127.0.0.1/v1", "127.0.0.1:8000/v1", "http:///v1", "http://h:99999/"])
async def test_url_that_is_not_http_is_refused_without_a_connection(pool: HttpPool, url: str):
    with pytest.raises(BadRequest):
        await fetch(pool, url)


async def test_header_holding_a_line_break_is_refused_before_sending(pool: HttpPool):
    async with scripted((HELLO_BY_LENGTH, False)) as server:
        with pytest.raises(BadRequest):
            pool.request("GET", f"http://127.0.0.1:{server.port}/", {"x-extra": "a\r\nx-injected: 1"})
    assert server.requests == []


# ---- TLS --------------------------------------------------------------------------


@pytest.fixture
def certificate(tmp_path: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 from a throwaway authority, and its key (the authority's in `ca.pem`)."""
    authority = trustme.CA()
    issued = authority.issue_cert("127.0.0.1")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    issued.private_key_pem.write_to_path(str(key))
    issued.cert_chain_pems[0].write_to_path(str(cert))
    authority.cert_pem.write_to_path(str(tmp_path / "ca.pem"))
    return cert, key


def server_tls(certificate: tuple[Path, Path]) -> ssl.SSLContext:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(*certificate)
    return context


async def test_https_reply_from_a_trusted_certificate_is_read(
    certificate: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv(
        "SSL_CERT_FILE", str(certificate[0].parent / "ca.pem")
    )  # the default context trusts it
    trusting = HttpPool(connect_timeout=2, keepalive_s=30)
    try:
        async with scripted((HELLO_CHUNKED, False), tls=server_tls(certificate)) as server:
            assert await fetch(trusting, f"https://127.0.0.1:{server.port}/") == (200, b"hello")
    finally:
        await trusting.aclose()


async def test_https_certificate_nobody_vouches_for_is_refused(
    pool: HttpPool, certificate: tuple[Path, Path]
):
    async with scripted((HELLO_CHUNKED, False), tls=server_tls(certificate)) as server:
        with pytest.raises(TransportError) as caught:
            await fetch(pool, f"https://127.0.0.1:{server.port}/")
    assert "certificate" in str(caught.value).lower()
