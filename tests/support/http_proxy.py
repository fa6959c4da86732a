"""A real HTTP proxy on 127.0.0.1 for tests: CONNECT tunnels and absolute-form forwarding.

It carries what a corporate egress proxy would, over real sockets, and
records each request it was asked to carry (`carried`): the method, the
target (`host:port` for a tunnel, the whole URL otherwise) and the
`Proxy-Authorization` it came with. It only ever connects to loopback
addresses (anything else is refused with 502), so nothing reaches the
internet through it.

    with LoopbackProxy() as proxy:                    # proxy.url: http://127.0.0.1:PORT
    with LoopbackProxy(credentials=("u", "p")) as proxy:   # 407 without them
    with LoopbackProxy(refuse=403) as proxy:           # every request refused with 403

It runs on its own thread and event loop, so synchronous tests (a gateway
in a child process) and async ones can both use it.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import ipaddress
import socket
import threading
from dataclasses import dataclass
from urllib.parse import urlsplit

import httptools

from tests.support.loop_thread import LoopThread


@dataclass(frozen=True)
class Carried:
    """One request the proxy was asked to carry; `authorization` is the Proxy-Authorization value."""

    method: str
    target: str
    authorization: str | None


class LoopbackProxy(LoopThread):
    thread_name = "loopback proxy"

    def __init__(self, *, credentials: tuple[str, str] | None = None, refuse: int | None = None) -> None:
        super().__init__()
        self.port = 0
        self.carried: list[Carried] = []
        self._expected = None
        if credentials is not None:
            pair = f"{credentials[0]}:{credentials[1]}".encode()
            self._expected = "Basic " + base64.b64encode(pair).decode()
        self._refuse = refuse
        self._lock = threading.Lock()
        self._tasks: set[asyncio.Task[None]] = set()

    def refuse_from_now(self, status: int) -> None:
        """Refuse every request from now on with `status`, and close the tunnels already open, so a
        client that set itself up through this proxy must ask again."""
        self._refuse = status
        with self._lock:
            self.carried.clear()
        assert self._loop is not None
        for task in list(self._tasks):
            self._loop.call_soon_threadsafe(task.cancel)

    def targets(self) -> list[str]:
        with self._lock:
            return [f"{c.method} {c.target}" for c in self.carried]

    async def _serve(self, ready: threading.Event) -> None:
        assert self._stopping is not None
        server = await asyncio.start_server(self._client, "127.0.0.1", 0)
        self.port = server.sockets[0].getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        ready.set()
        async with server:
            await self._stopping.wait()
            server.close()
            for task in list(self._tasks):
                task.cancel()
            await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        upstream: tuple[str, asyncio.StreamReader, asyncio.StreamWriter] | None = None
        try:
            while (head := await _read_head(reader)) is not None:
                method, target, headers = head
                authorization = headers.pop("proxy-authorization", None)
                with self._lock:
                    self.carried.append(Carried(method, target, authorization))
                if self._refuse is not None:
                    await _say(writer, self._refuse, "Refused by the test proxy")
                    return
                if self._expected is not None and authorization != self._expected:
                    await _say(writer, 407, "Proxy Authentication Required")
                    return
                if method == "CONNECT":
                    await self._tunnel(target, reader, writer)
                    return
                upstream = await self._forward(method, target, headers, reader, writer, upstream)
                if upstream is None:
                    return
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.CancelledError):
            pass
        finally:
            self._tasks.discard(task)
            if upstream is not None:
                upstream[2].close()
            writer.close()

    async def _tunnel(self, target: str, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        host, _, port = target.rpartition(":")
        opened = await _open_loopback(host.strip("[]"), int(port))
        if opened is None:
            await _say(writer, 502, "Only loopback destinations")
            return
        far_reader, far_writer = opened
        writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
        await writer.drain()
        await asyncio.gather(_pipe(reader, far_writer), _pipe(far_reader, writer), return_exceptions=True)

    async def _forward(
        self,
        method: str,
        target: str,
        headers: dict[str, str],
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        upstream: tuple[str, asyncio.StreamReader, asyncio.StreamWriter] | None,
    ) -> tuple[str, asyncio.StreamReader, asyncio.StreamWriter] | None:
        """One absolute-form request passed on in origin form, its reply passed back whole."""
        parts = urlsplit(target)
        origin = parts.netloc
        if upstream is None or upstream[0] != origin:
            if upstream is not None:
                upstream[2].close()
            opened = await _open_loopback(parts.hostname or "", parts.port or 80)
            if opened is None:
                await _say(writer, 502, "Only loopback destinations")
                return None
            upstream = (origin, *opened)
        body = await reader.readexactly(int(headers.get("content-length") or 0))
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        lines = [f"{method} {path} HTTP/1.1", *(f"{name}: {value}" for name, value in headers.items())]
        upstream[2].write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body)
        await upstream[2].drain()
        await _pass_reply(upstream[1], writer)
        return upstream


async def _read_head(reader: asyncio.StreamReader) -> tuple[str, str, dict[str, str]] | None:
    try:
        raw = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError:
        return None
    first, *lines = raw.decode("latin-1").split("\r\n")
    method, target, _version = first.split(" ", 2)
    headers: dict[str, str] = {}
    for line in lines:
        if line:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
    return method, target, headers


async def _open_loopback(host: str, port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter] | None:
    """A connection to `host:port` when every address it names is a loopback one, else None."""
    try:
        found = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError:
        return None
    addresses = [info[4][0] for info in found]
    if not addresses or not all(ipaddress.ip_address(a.split("%")[0]).is_loopback for a in addresses):
        return None
    return await asyncio.open_connection(host, port)


async def _pipe(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
    try:
        while data := await source.read(65536):
            sink.write(data)
            await sink.drain()
    finally:
        with contextlib.suppress(OSError, RuntimeError):
            sink.close()


async def _pass_reply(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
    """Copy one reply, ending where httptools says the message ends (or where the server closes)."""
    ended = asyncio.Event()

    class Watch:
        def on_message_complete(self) -> None:
            ended.set()

    parser = httptools.HttpResponseParser(Watch())
    while not ended.is_set():
        data = await source.read(65536)
        if not data:
            return
        parser.feed_data(data)
        sink.write(data)
        await sink.drain()


async def _say(writer: asyncio.StreamWriter, status: int, reason: str) -> None:
    extra = 'proxy-authenticate: Basic realm="test"\r\n' if status == 407 else ""
    writer.write(
        f"HTTP/1.1 {status} {reason}\r\n{extra}content-length: 0\r\nconnection: close\r\n\r\n".encode()
    )
    await writer.drain()
