"""How big and how slow a request's head and body may be, kept by `panelgate serve`'s HTTP protocol.

uvicorn's httptools protocol takes a head of any size and any number of
headers (an 8 MB header and 20,000 headers were both answered), and waits as
long as a client likes for a head or a body: fifty connections sending a
byte every few seconds were all still open after 30 s, each holding a socket
and a parser. These are limits on bytes and time before any ASGI app sees
the request, so they live in the protocol: `LimitedHttpTools` is uvicorn's
httptools protocol plus

- the head (request line and headers) counted as its bytes arrive, so a huge
  header is refused before it is buffered whole: over `max_header_bytes`, or
  more than `max_headers` headers, gets 431 and the connection is closed;
- one timer a connection: the whole head within `head_timeout_s` of the
  connection (or of the first byte after an earlier request, blank lines
  too), and each piece of a body within `body_read_timeout_s` of the one
  before; else 408 and closed. A wait that is the server's (reading paused
  until the app catches up, a client waiting for `100 Continue`, a reply
  still being written) never counts.

Cost per request: three overridden protocol callbacks of a few attribute
reads each, one `call_later` and one `cancel`: 3 to 5 more Python calls than
plain httptools (`GET /health` 799 against 802, a small `POST` 148 against
152, counted in the server thread); a body costs one clock read a chunk. A
head's exact size is added up only when more bytes than the limit came with it.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Callable
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any

import orjson
from starlette.types import Receive, Scope, Send
from uvicorn.config import Config
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.server import ServerState

from panelgate.settings import Settings

log = logging.getLogger(__name__)

AWAITING, HEAD, BODY = "awaiting", "head", "body"
"""Where a connection is: between requests (uvicorn's keep-alive timer's), reading a head, or a body."""


@dataclass(frozen=True)
class ReadLimits:
    max_header_bytes: int
    max_headers: int
    head_timeout_s: float
    body_read_timeout_s: float

    @classmethod
    def from_settings(cls, settings: Settings) -> ReadLimits:
        return cls(
            settings.max_header_bytes,
            settings.max_headers,
            settings.head_timeout_s,
            settings.body_read_timeout_s,
        )


def limited_protocol(settings: Settings) -> Callable[..., asyncio.Protocol]:
    """uvicorn's `http` option for `panelgate serve` (picklable, for the workers of `--workers`)."""
    return functools.partial(LimitedHttpTools, limits=ReadLimits.from_settings(settings))


def _error_body(message: str) -> bytes:
    return orjson.dumps({"error": {"message": message}})


def _closing_reply(status: int, message: str) -> bytes:
    """A whole reply that closes the connection, written straight to the socket (no app has the request)."""
    body = _error_body(message)
    head = (
        f"HTTP/1.1 {status} {HTTPStatus(status).phrase}\r\n"
        "content-type: application/json\r\n"
        f"content-length: {len(body)}\r\n"
        "connection: close\r\n\r\n"
    )
    return head.encode() + body


class _Refusal:
    """The ASGI app a refused head gets instead of the gateway's (`connection: close`: uvicorn hangs up)."""

    def __init__(self, status: int, message: str) -> None:
        self.status = status
        self.body = _error_body(message)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(self.body)).encode()),
            (b"connection", b"close"),
        ]
        await send({"type": "http.response.start", "status": self.status, "headers": headers})
        await send({"type": "http.response.body", "body": self.body})


class LimitedHttpTools(HttpToolsProtocol):
    def __init__(
        self,
        config: Config,
        server_state: ServerState,
        app_state: dict[str, Any],
        _loop: asyncio.AbstractEventLoop | None = None,
        *,
        limits: ReadLimits,
    ) -> None:
        super().__init__(config, server_state, app_state, _loop)
        self.limits = limits
        self._phase = HEAD
        self._head_bytes = 0
        self._deadline = 0.0
        self._timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._watch(self.limits.head_timeout_s)

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_watching()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._phase is BODY:
            self._deadline = self.loop.time() + self.limits.body_read_timeout_s
        else:
            if self._phase is AWAITING:  # any byte starts the clock, even blank lines the parser skips
                self._phase = HEAD
                self._watch(self.limits.head_timeout_s)
            self._head_bytes += len(data)
        super().data_received(data)
        if self._phase is HEAD and self._head_bytes > self.limits.max_header_bytes:
            self._refuse_unfinished_head()

    def on_headers_complete(self) -> None:
        self._phase = BODY
        limits = self.limits
        self._deadline = self.loop.time() + limits.body_read_timeout_s
        small = len(self.headers) <= limits.max_headers and self._head_bytes <= limits.max_header_bytes
        refusal = None if small else self._head_refusal()
        if refusal is None:
            super().on_headers_complete()
            return
        log.info("refused a request head: %s", refusal)
        gateway, self.app = self.app, _Refusal(431, refusal)
        try:  # uvicorn starts the request's cycle with `self.app`; this one request gets the refusal
            super().on_headers_complete()
        finally:
            self.app = gateway

    def on_message_complete(self) -> None:
        self._phase = AWAITING
        self._head_bytes = 0
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        super().on_message_complete()

    def _head_refusal(self) -> str | None:
        """Why this complete head is refused, or None. Its exact size is added up only when more
        bytes than the limit arrived since it began (a body in the same packet counts there too)."""
        count = len(self.headers)
        if count > self.limits.max_headers:
            return f"the request has {count} headers; the gateway reads at most {self.limits.max_headers}"
        if self._head_bytes > self.limits.max_header_bytes:
            size = len(self.url) + sum(len(name) + len(value) + 4 for name, value in self.headers)
            if size > self.limits.max_header_bytes:
                return self._too_large()
        return None

    def _too_large(self) -> str:
        return f"the request line and headers are larger than {self.limits.max_header_bytes // 1024} KiB"

    def _refuse_unfinished_head(self) -> None:
        """Over the size limit with the head still arriving: answer now, without reading the rest."""
        if self.transport.is_closing():
            return
        log.info("refused a request head: %s", self._too_large())
        self._close(_closing_reply(431, self._too_large()))

    # ---- the read timer --------------------------------------------------------------

    def _watch(self, seconds: float) -> None:
        self._deadline = self.loop.time() + seconds
        if self._timer is None:
            self._timer = self.loop.call_later(seconds, self._on_deadline)

    def _stop_watching(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _on_deadline(self) -> None:
        self._timer = None
        if (
            self._phase is AWAITING
            or self.transport.is_closing()
            or self.transport.get_protocol() is not self
        ):
            return  # nothing to read, already closing, or handed over to a WebSocket
        if self._server_is_behind():
            self._deadline = self.loop.time() + self._timeout_s()
        if self.loop.time() < self._deadline:
            self._timer = self.loop.call_at(self._deadline, self._on_deadline)
            return
        self._time_out()

    def _timeout_s(self) -> float:
        return self.limits.head_timeout_s if self._phase is HEAD else self.limits.body_read_timeout_s

    def _server_is_behind(self) -> bool:
        """Whether the wait is the server's: an earlier reply still going out, reading paused until
        the app takes what was read, or a client waiting to be told to send its body."""
        cycle = self.cycle
        if cycle is None:
            return False
        if self._phase is HEAD:
            return not cycle.response_complete
        answering = cycle.response_started and not cycle.response_complete
        return answering or self.flow.read_paused or cycle.waiting_for_100_continue

    def _time_out(self) -> None:
        if self._phase is HEAD and self._head_bytes == 0:
            log.debug("closed a connection that sent nothing for %g s", self.limits.head_timeout_s)
            self.transport.close()
            return
        if self._phase is HEAD:
            message = f"the request head did not arrive within {self.limits.head_timeout_s:g} s"
        else:
            message = f"the request body stopped arriving for {self.limits.body_read_timeout_s:g} s"
        log.info("closed a slow connection: %s", message)
        self._close(_closing_reply(408, message))

    def _close(self, reply: bytes) -> None:
        """Write `reply` unless the app's reply to this request is, or was, on the wire; then close."""
        cycle = self.cycle
        if self._phase is BODY:
            free = cycle is not None and not cycle.response_started
        else:
            free = cycle is None or cycle.response_complete
        if free:
            self.transport.write(reply)
        self.transport.close()
