"""A lean HTTP/1.1 client for the chat calls: a pool of kept-alive connections on asyncio protocols.

Why it exists: every seat of every panel is one upstream call, so the cost of
a call is paid three times per panel. aiohttp spent about 0.41 ms of CPU per
streamed call (64 and 256 calls in flight, `benchmarks/upstream_client.py`,
on a quiet 2-core machine), most of it in request, cookie, header and stream
objects the gateway never uses. This client does only what a chat call
needs, with uvicorn's C parser (`httptools`, in `http_connection`) reading
the replies: 0.17 to 0.21 ms per call, including the SSE reading, 2.3 to 2.9
times less CPU than aiohttp in side-by-side runs, and about twice the
calls/s at 256 in flight.

What it does:

- one pool of kept-alive connections per route (scheme, host, port and the
  proxy it goes through); a connection goes back to the pool only when its
  reply was read to the end without an error, and an idle one is closed
  after `keepalive_s`;
- at most `connections_per_host` connections per route (`connection_cap`):
  a request over the cap waits for one to come back, first come first
  served. The wait is bounded by the caller's own deadline (the client's
  timeout around the request), not by the connect timeout, which counts
  only the opening of a connection (`connection_opening`: resolving, the
  race of the host's IPv6 and IPv4 addresses in `dialing`, the proxy's
  tunnel, the TLS handshake);
- `HTTPS_PROXY`, `HTTP_PROXY` and `NO_PROXY`, read once when the pool is
  made (`proxy_route`, `destination`): https through a CONNECT tunnel
  (`proxy_tunnel`), http by asking the proxy for the whole URL (a 407 to
  that is the proxy's refusal, a `TransportError` naming it);
- HTTPS through `ssl.create_default_context()`: the certificate and the host
  name of the destination (never the proxy) are checked, and the name is
  sent as SNI;
- bodies framed by Content-Length, chunked, or by the server closing the
  connection (which is then never reused);
- it asks for an uncompressed reply and refuses a compressed one;
- no redirects or cookies: a request goes exactly where it was addressed
  and its reply comes back as it is.

Every failure is a `TransportError`; the caller tells a failure before the
reply's head (may be sent again) from one during the body (the reply is cut)
by where it happened. One failure never reaches the caller: when the server
closes a reused connection (EOF or reset) before a byte of the reply came,
which is how a kept-alive connection it dropped while idle looks as it is
taken, the request goes again at once, once, on a new connection. The
caller sees one request, so `retry` neither waits nor counts an attempt.
A fresh connection, or a reply that had begun, is never sent again here.
`BadRequest` is a request that could never be sent.
"""

from __future__ import annotations

import asyncio
import os
import ssl
from collections.abc import Mapping
from types import TracebackType

from panelgate.upstream.connection_cap import ConnectionCap
from panelgate.upstream.connection_opening import ConnectionOpener
from panelgate.upstream.destination import Destination, PoolKey, destination
from panelgate.upstream.http_connection import HttpConnection, Reply
from panelgate.upstream.proxy_route import ProxyRoutes
from panelgate.upstream.transport_errors import BadRequest, ProxyRefused, TransportError

__all__ = ["BadRequest", "Exchange", "HttpPool", "ProxyRefused", "Reply", "TransportError"]

_MAX_URLS_REMEMBERED = 4096
_USER_AGENT = "panelgate"
_SWEEPS_PER_KEEPALIVE = 4


class Exchange:
    """One request on a pooled connection: `async with pool.request(...) as reply`."""

    __slots__ = ("_connection", "_destination", "_pool", "_request")

    def __init__(self, pool: HttpPool, destination: Destination, request: bytes) -> None:
        self._pool = pool
        self._destination = destination
        self._request = request
        self._connection: HttpConnection | None = None

    async def __aenter__(self) -> Reply:
        pool = self._pool
        connection = await pool._checkout(self._destination)
        resent = False
        while True:
            self._connection = connection
            connection.send(self._request)
            try:
                await connection.head()
                if connection.status != 407 or self._destination.proxy is None:
                    return connection
                raise _proxy_refused(self._destination, connection)
            except TransportError:
                self._connection = None
                pool._checkin(connection)
                if resent or not (connection.went_stale and connection.uses > 1):
                    raise
            except BaseException:
                self._connection = None
                pool._checkin(connection)
                raise
            resent = True  # the server dropped a kept-alive connection: nothing of this request was read
            connection = await pool._checkout(self._destination, fresh=True)

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        if self._connection is not None:
            self._pool._checkin(self._connection)


class HttpPool:
    """Kept-alive HTTP/1.1 connections per route; use it from one event loop.

    `proxies` None reads the environment now; `tls` None is the default
    context (the system's authorities, `SSL_CERT_FILE`), made on first use.
    """

    def __init__(
        self,
        *,
        connect_timeout: float,
        keepalive_s: float,
        connections_per_host: int = 512,
        proxies: ProxyRoutes | None = None,
        tls: ssl.SSLContext | None = None,
    ) -> None:
        self._keepalive_s = keepalive_s
        self._routes = proxies if proxies is not None else ProxyRoutes.from_environment(os.environ)
        self._opener = ConnectionOpener(connect_timeout, tls)
        self._cap = ConnectionCap(connections_per_host)
        self._lines = self._cap.lines
        self._idle: dict[PoolKey, dict[HttpConnection, None]] = {}
        self._open: set[HttpConnection] = set()
        self._destinations: dict[str, Destination] = {}
        self._sweeper: asyncio.TimerHandle | None = None

    def request(self, method: str, url: str, headers: Mapping[str, str], body: bytes = b"") -> Exchange:
        """Send one request; the reply is read inside the `async with` block."""
        destination = self._destination(url)
        lines = [
            f"{method} {destination.target} HTTP/1.1\r\nhost: {destination.host_header}\r\n"
            f"{destination.proxy_header}"
        ]
        for name, value in headers.items():
            if "\n" in value or "\r" in value or "\n" in name or "\r" in name:
                raise BadRequest(f"the header `{name}` holds a line break, which HTTP does not allow")
            lines.append(f"{name}: {value}\r\n")
        if "user-agent" not in headers:
            lines.append(f"user-agent: {_USER_AGENT}\r\n")
        lines.append("accept-encoding: identity\r\n")
        if body or method != "GET":
            lines.append(f"content-length: {len(body)}\r\n")
        lines.append("\r\n")
        head = "".join(lines).encode("utf-8")
        return Exchange(self, destination, head + body if body else head)

    async def aclose(self) -> None:
        for connection in list(self._open):
            connection.close()
        self._cap.close(TransportError("the connection pool was closed"))
        self._open.clear()
        self._idle.clear()
        if self._sweeper is not None:
            self._sweeper.cancel()
            self._sweeper = None

    # ---- lending connections -------------------------------------------------------

    def _destination(self, url: str) -> Destination:
        found = self._destinations.get(url)
        if found is None:
            found = destination(url, self._routes)
            if len(self._destinations) >= _MAX_URLS_REMEMBERED:
                self._destinations.clear()
            self._destinations[url] = found
        return found

    async def _checkout(self, destination: Destination, *, fresh: bool = False) -> HttpConnection:
        """An idle connection of the route (none when `fresh`), a new one, or, at the route's cap,
        one another request hands over."""
        key = destination.key
        idle = None if fresh else self._idle.get(key)
        while idle:
            connection = idle.popitem()[0]
            if not connection.closed:
                return connection
            self._forget(connection)
        if not self._cap.take(key):
            handed = await self._cap.wait(key, self._checkin)
            if handed is not None:
                return handed
        try:
            connection = await self._opener.open(destination)
        except BaseException:
            self._cap.release(key)
            raise
        self._open.add(connection)
        return connection

    def _checkin(self, connection: HttpConnection) -> None:
        connection.finish()
        if not connection.reusable or connection.closed:
            connection.close()
            self._forget(connection)
            return
        if (
            self._lines
            and (line := self._lines.get(connection.key))
            and self._cap.hand_over(line, connection)
        ):
            return  # handed to the first request waiting for the route
        loop = asyncio.get_running_loop()
        connection.idle_since = loop.time()
        self._idle.setdefault(connection.key, {})[connection] = None
        if self._sweeper is None:
            self._sweeper = loop.call_later(self._keepalive_s / _SWEEPS_PER_KEEPALIVE, self._sweep)

    def _forget(self, connection: HttpConnection) -> None:
        """A closed connection leaves the pool; its place goes to the next request in line."""
        if connection in self._open:
            self._open.discard(connection)
            self._cap.release(connection.key)

    def _sweep(self) -> None:
        """Close the connections idle for `keepalive_s` or longer.

        One timer for the whole pool rather than one per idle connection, so a
        call does not pay for a timer; a connection is closed at the latest a
        quarter of `keepalive_s` late. Each route's idle connections are kept
        in the order they became idle, so the sweep stops at the first young one.
        """
        loop = asyncio.get_running_loop()
        oldest_kept = loop.time() - self._keepalive_s
        for idle in self._idle.values():
            while idle:
                connection = next(iter(idle))
                if connection.idle_since > oldest_kept and not connection.closed:
                    break
                del idle[connection]
                connection.close()
                self._forget(connection)
        self._idle = {key: idle for key, idle in self._idle.items() if idle}
        self._sweeper = None
        if self._idle:
            self._sweeper = loop.call_later(self._keepalive_s / _SWEEPS_PER_KEEPALIVE, self._sweep)


def _proxy_refused(destination: Destination, reply: HttpConnection) -> TransportError:
    """A 407 to a request for a whole URL comes from the proxy, never from the destination."""
    label = destination.proxy.label if destination.proxy else ""
    return ProxyRefused(
        f"the proxy {label} refused to carry a request to {destination.host_header}: 407 {reply.reason}",
        status=407,
    )
