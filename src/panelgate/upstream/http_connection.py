"""One kept-alive HTTP/1.1 connection: writes a request, parses its reply with httptools.

The pool (`transport`) lends it out for one request at a time, as the
`Reply` its caller reads. It also remembers what the pool needs to decide
whether a failed request may go again on another connection: how many
requests it carried (`uses`) and whether the failure was the server closing
it before a single byte of the reply came (`went_stale`), which is how an
idle kept-alive connection the server had just dropped looks from here.
"""

from __future__ import annotations

import asyncio
from typing import Protocol, cast

import httptools

from panelgate.upstream.destination import PoolKey
from panelgate.upstream.transport_errors import TransportError

_MAX_HEAD_BYTES = 256 * 1024
_PAUSE_AT_BYTES = 1024 * 1024


class Reply(Protocol):
    """The reply to one request: its head at once, its body as it arrives.

    It is the connection itself, lent for one request; the pool takes it
    back when the `request` block ends. `read` returns the body bytes that
    arrived since the last read (waiting for some), or b"" once the body is
    complete; it raises `TransportError` when the connection fails, after
    handing over the bytes that came before the failure.
    """

    status: int
    reason: str
    headers: dict[str, str]

    async def read(self) -> bytes: ...


class HttpConnection(asyncio.Protocol):
    """One connection of the pool; `key` is the pool's key for the route it was opened on."""

    def __init__(self, loop: asyncio.AbstractEventLoop, key: PoolKey) -> None:
        self.key = key
        self._loop = loop
        self._transport: asyncio.Transport | None = None
        self._parser = httptools.HttpResponseParser(self)
        self.closed = False
        self.idle_since = 0.0
        self.uses = 0
        self._waiter: asyncio.Future[None] | None = None
        self._active = False
        self._begin()

    def _begin(self) -> None:
        self.status = 0
        self.reason = ""
        self.headers: dict[str, str] = {}
        self._head_done = False
        self._head_bytes = 0
        self._header_bytes = 0
        self.complete = False
        self.reusable = False
        self.went_stale = False
        self._body: list[bytes] = []
        self._buffered = 0
        self._paused = False
        self._error: TransportError | None = None

    # ---- the request side ----------------------------------------------------------

    def send(self, request: bytes) -> None:
        self._begin()
        self._active = True
        self.uses += 1
        assert self._transport is not None
        self._transport.write(request)

    async def head(self) -> None:
        """Wait for the reply's status line and headers."""
        while not self._head_done:
            if self._error is not None:
                raise self._error
            await self._wait()

    async def read(self) -> bytes:
        while True:
            if self._body:
                data = self._body[0] if len(self._body) == 1 else b"".join(self._body)
                self._body.clear()
                self._buffered = 0
                if self._paused and self._transport is not None:
                    self._paused = False
                    self._transport.resume_reading()
                return data
            if self.complete:
                return b""
            if self._error is not None:
                raise self._error
            await self._wait()

    def finish(self) -> None:
        """The request is over; whether the connection may carry another is in `reusable`."""
        self._active = False
        self._body.clear()
        if self._paused and self._transport is not None:
            self._paused = False
            self._transport.resume_reading()

    def close(self) -> None:
        self.closed = True
        if self._transport is not None:
            self._transport.close()

    async def _wait(self) -> None:
        self._waiter = self._loop.create_future()
        try:
            await self._waiter
        finally:
            self._waiter = None

    def _wake(self) -> None:
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    def _fail(self, why: str) -> None:
        if self._error is None and not self.complete:
            self._error = TransportError(why)
        self.close()
        self._wake()

    # ---- asyncio.Protocol ----------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._transport = cast(asyncio.Transport, transport)

    def data_received(self, data: bytes) -> None:
        if not self._active:
            self.close()  # an idle connection the server talks on is out of step
            return
        try:
            self._parser.feed_data(data)
        except httptools.HttpParserError as exc:
            self._fail(f"the reply is not valid HTTP/1.1 ({exc})")
            return
        except httptools.HttpParserUpgrade:
            self._fail("the reply switched protocols")
            return
        if not self._head_done:
            self._head_bytes += len(data)  # a head that never ends is cut off here
            if self._head_bytes > _MAX_HEAD_BYTES:
                self._fail(f"the reply's headers passed {_MAX_HEAD_BYTES:,} bytes")
                return
        elif self._buffered > _PAUSE_AT_BYTES and not self._paused and self._transport is not None:
            self._paused = True
            self._transport.pause_reading()
        self._wake()

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        if self._active and not self.complete:
            if self._head_done and exc is None and self._until_close():
                self.complete = True
            elif self._error is None:
                why = (str(exc) or type(exc).__name__) if exc else "the endpoint closed the connection"
                self._error = TransportError(why)
                silent = not self._head_done and self._head_bytes == 0
                self.went_stale = silent and (exc is None or isinstance(exc, ConnectionError))
        self._wake()

    def _until_close(self) -> bool:
        """Whether this reply's body is framed by the server closing the connection."""
        return "content-length" not in self.headers and "transfer-encoding" not in self.headers

    # ---- httptools callbacks -------------------------------------------------------

    def on_status(self, status: bytes) -> None:
        self.reason = status.decode("latin-1")

    def on_header(self, name: bytes, value: bytes) -> None:
        self._header_bytes += len(name) + len(value)
        self.headers[name.decode("latin-1").lower()] = value.decode("latin-1")

    def on_headers_complete(self) -> None:
        status = self._parser.get_status_code()
        if status < 200:  # an interim reply (100 Continue): the real one follows
            self.headers = {}
            return
        if self._header_bytes > _MAX_HEAD_BYTES:
            self._fail(f"the reply's headers passed {_MAX_HEAD_BYTES:,} bytes")
            return
        encoding = self.headers.get("content-encoding", "identity").lower()
        if encoding != "identity":
            self._fail(f"the reply is compressed ({encoding}) although an uncompressed one was asked for")
            return
        self.status = status
        self._head_done = True

    def on_body(self, body: bytes) -> None:
        self._body.append(body)
        self._buffered += len(body)

    def on_message_complete(self) -> None:
        if not self._head_done:
            return
        self.complete = True
        self.reusable = self._parser.should_keep_alive() and not self.closed
