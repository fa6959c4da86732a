"""One HTTP exchange with the server, over the standard library's `http.client`.

Every command runs in a fresh process, so what the CLI imports is paid on
each run: httpx cost about 150 ms of CPU to import (its `__init__` pulls in
rich and click for its own command line), `http.client` a quarter of that. A
command makes one request or a few, so each exchange opens its own
connection and closes it once the answer is read: no pool to keep and no
stale keep-alive connection to detect.

Opening the connection fails with `Unreachable` (refused, unknown host, TLS
refused, no answer within the connect timeout). Once it is open, a server
silent for the read timeout raises `TimeoutError`, and a connection that
breaks raises another `OSError` or an `http.client.HTTPException`.
"""

from __future__ import annotations

import http.client
import json
import ssl
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from email.message import Message
from typing import Any
from urllib.parse import SplitResult, urlencode, urlsplit
from urllib.request import getproxies, proxy_bypass


class Unreachable(Exception):
    """The connection to the server could not be opened."""


@dataclass(frozen=True)
class Response:
    """An answer read whole: status, headers and body."""

    status_code: int
    headers: Message
    content: bytes

    @property
    def text(self) -> str:
        try:
            return self.content.decode(self.headers.get_content_charset() or "utf-8", errors="replace")
        except LookupError:  # a charset Python does not know
            return self.content.decode("utf-8", errors="replace")

    def json(self) -> Any:
        """The body as JSON; `ValueError` when it is not."""
        return json.loads(self.content)


class Transport:
    """Requests to one server: its base URL's path is put before every request's path."""

    def __init__(
        self, base_url: str, headers: Mapping[str, str], timeout_s: float, connect_timeout_s: float
    ) -> None:
        parts = urlsplit(base_url)
        self._host = parts.hostname or ""
        self._port = parts.port
        self._prefix = parts.path
        self._proxy = _proxy_for(parts)
        self._origin = f"{parts.scheme}://{parts.netloc}" if self._proxy and parts.scheme != "https" else ""
        self._tls = ssl.create_default_context() if parts.scheme == "https" else None
        self._headers = dict(headers)
        self._timeout_s = timeout_s
        self._connect_timeout_s = connect_timeout_s

    def request(
        self,
        method: str,
        path: str,
        *,
        body: Any = None,
        params: Mapping[str, str] | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> Response:
        """One request, its answer read whole."""
        with self.exchange(method, path, body=body, params=params, headers=headers) as response:
            return Response(response.status, response.headers, response.read())

    @contextmanager
    def exchange(
        self,
        method: str,
        path: str,
        *,
        body: Any = None,
        params: Mapping[str, str] | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> Iterator[http.client.HTTPResponse]:
        """One request; the answer with its head read and its body still to read, until the block ends."""
        sent = {**self._headers, **(headers or {})}
        content = None
        if body is not None:
            content = json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()
            sent["Content-Type"] = "application/json"
        connection = self._open()
        try:
            connection.request(method, self._target(path, params), body=content, headers=sent)
            yield connection.getresponse()
        finally:
            connection.close()

    def _target(self, path: str, params: Mapping[str, str] | None) -> str:
        query = f"?{urlencode(params)}" if params else ""
        return f"{self._origin}{self._prefix}{path}{query}"

    def _open(self) -> http.client.HTTPConnection:
        """A connection to the server, or through `HTTP(S)_PROXY` to it: an https server is reached
        through a CONNECT tunnel, an http one by asking the proxy for the whole URL."""
        host, port = self._proxy or (self._host, self._port)
        connection = (
            http.client.HTTPSConnection(host, port, timeout=self._connect_timeout_s, context=self._tls)
            if self._tls
            else http.client.HTTPConnection(host, port, timeout=self._connect_timeout_s)
        )
        if self._tls and self._proxy:
            connection.set_tunnel(self._host, self._port)
        try:
            connection.connect()
        except OSError as error:
            connection.close()
            raise Unreachable(str(error)) from error
        assert connection.sock is not None
        connection.sock.settimeout(self._timeout_s)
        return connection


def _proxy_for(server: SplitResult) -> tuple[str, int | None] | None:
    """The proxy the environment names for this server (`HTTPS_PROXY`, `HTTP_PROXY`, `NO_PROXY`), if any."""
    proxy = getproxies().get(server.scheme)
    if not proxy or proxy_bypass(server.hostname or ""):
        return None
    parts = urlsplit(proxy if "://" in proxy else f"http://{proxy}")
    return parts.hostname or "", parts.port


def lines(response: http.client.HTTPResponse) -> Iterator[str]:
    """The body's lines as text, each ended by `\\n`, `\\r\\n` or `\\r`, as server-sent events count them."""
    while raw := response.readline():
        yield from raw.decode(errors="replace").removesuffix("\n").removesuffix("\r").split("\r")
