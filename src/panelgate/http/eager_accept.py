"""The server's event loop: uvloop, taking every waiting connection each time a listener is ready.

libuv accepts one connection per turn of its loop (since 1.45, libuv#3696),
and a gateway busy with 256 panels turns its loop some fifty times a second:
256 clients connecting at once were let in over six seconds, while clients
already connected were answered in half a second, so at c=256 the p99 was
ten times the p50 (`benchmarks/run.py`). Here each plain TCP listener is
watched by a reader of our own that accepts everything waiting, up to the
backlog, and hands each socket to uvloop as an accepted connection; the
HTTP protocol, the transports and every later read are uvloop's as before.
TLS, Unix sockets and whatever else uvicorn may ask for go to uvloop
unchanged. uvicorn is given `new_event_loop` as its loop (`loop=` option).
"""

from __future__ import annotations

import asyncio
import errno
import itertools
import logging
import socket
from collections.abc import Callable, Iterable
from typing import Any

import uvloop

log = logging.getLogger(__name__)

OUT_OF_RESOURCES = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM})
"""accept() errors that pass when connections close: the listener rests a second, as asyncio's does."""

REST_S = 1.0

ProtocolFactory = Callable[[], asyncio.BaseProtocol]


def new_event_loop() -> asyncio.AbstractEventLoop:
    """The loop factory uvicorn is given (`loop="panelgate.http.eager_accept:new_event_loop"`)."""
    return EagerAcceptLoop()


class EagerAcceptLoop(uvloop.Loop):
    async def create_server(  # type: ignore[override]
        self,
        protocol_factory: ProtocolFactory,
        host: str | list[str] | None = None,
        port: int | None = None,
        *,
        sock: socket.socket | None = None,
        backlog: int = 100,
        ssl: Any = None,
        **options: Any,
    ) -> asyncio.AbstractServer:
        plain = ssl is None and options.get("start_serving", True) and not set(options) - {"start_serving"}
        if not plain or (sock is not None and sock.family not in (socket.AF_INET, socket.AF_INET6)):
            uvloops: Any = super().create_server  # its overloads take a socket or a host, not either
            server: asyncio.AbstractServer = await uvloops(
                protocol_factory, host, port, sock=sock, backlog=backlog, ssl=ssl, **options
            )
            return server
        listeners = [sock] if sock is not None else _bind(host, port)
        return EagerServer(self, listeners, protocol_factory, backlog)


class EagerServer(asyncio.AbstractServer):
    """Listeners whose waiting connections are all accepted each time one is ready."""

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        listeners: list[socket.socket],
        protocol_factory: ProtocolFactory,
        backlog: int,
    ) -> None:
        self._loop = loop
        self._listeners = listeners
        self._protocol_factory = protocol_factory
        self._backlog = backlog
        self._opening: set[asyncio.Task[Any]] = set()
        self._closed = asyncio.Event()
        for listener in listeners:
            listener.setblocking(False)
            listener.listen(backlog)
            self._watch(listener)

    @property
    def sockets(self) -> tuple[socket.socket, ...]:
        return tuple(self._listeners)

    def get_loop(self) -> asyncio.AbstractEventLoop:
        return self._loop

    def is_serving(self) -> bool:
        return not self._closed.is_set()

    async def start_serving(self) -> None:
        """Serving began when the server was made."""

    async def serve_forever(self) -> None:
        await self._closed.wait()

    def close(self) -> None:
        if self._closed.is_set():
            return
        self._closed.set()
        for listener in self._listeners:
            self._loop.remove_reader(listener.fileno())
            listener.close()

    async def wait_closed(self) -> None:
        await self._closed.wait()

    def _watch(self, listener: socket.socket) -> None:
        if not self._closed.is_set():
            self._loop.add_reader(listener.fileno(), self._accept_waiting, listener)

    def _accept_waiting(self, listener: socket.socket) -> None:
        for _ in range(self._backlog):
            try:
                connection, _ = listener.accept()
            except (BlockingIOError, InterruptedError, ConnectionAbortedError):
                return
            except OSError as exc:
                if exc.errno not in OUT_OF_RESOURCES:
                    raise
                log.error("cannot accept connections (%s); trying again in %.0f s", exc.strerror, REST_S)
                self._loop.remove_reader(listener.fileno())
                self._loop.call_later(REST_S, self._watch, listener)
                return
            connection.setblocking(False)
            opening = self._loop.create_task(self._open(connection))
            self._opening.add(opening)
            opening.add_done_callback(self._opening.discard)

    async def _open(self, connection: socket.socket) -> None:
        try:
            await self._loop.connect_accepted_socket(self._protocol_factory, connection)
        except OSError:  # the client left before its transport was made
            connection.close()


def _bind(host: str | list[str] | None, port: int | None) -> list[socket.socket]:
    """Listening sockets for every address `host` names, as asyncio's `create_server` binds them."""
    hosts: Iterable[str | None] = [None] if host in (None, "") else [host] if isinstance(host, str) else host
    found = itertools.chain.from_iterable(
        socket.getaddrinfo(name, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE) for name in hosts
    )
    listeners: list[socket.socket] = []
    try:
        for family, kind, proto, _, address in dict.fromkeys(found):
            listener = socket.socket(family, kind, proto)
            listeners.append(listener)
            listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:
                listener.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            try:
                listener.bind(address)
            except OSError as exc:
                raise OSError(
                    exc.errno, f"error while attempting to bind on address {address!r}: {exc.strerror}"
                ) from exc
    except BaseException:
        for listener in listeners:
            listener.close()
        raise
    return listeners
