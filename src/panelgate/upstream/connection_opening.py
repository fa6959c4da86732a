"""Opening a new connection for a destination, all of it within the connect timeout.

Resolving and racing the host's addresses (`dialing`), the proxy's CONNECT
tunnel for an https destination behind a proxy (`proxy_tunnel`), then TLS
with the destination's name as SNI and as the name its certificate must
carry. A failure is a `TransportError` naming the proxy when one was on the
way (by host and port only), and `timed_out` when the timeout passed.
"""

from __future__ import annotations

import asyncio
import socket
import ssl

from panelgate.upstream.destination import Destination
from panelgate.upstream.dialing import dial
from panelgate.upstream.http_connection import HttpConnection
from panelgate.upstream.proxy_tunnel import open_tunnel
from panelgate.upstream.transport_errors import TransportError


class ConnectionOpener:
    """`tls` None is the default context (the system's authorities, `SSL_CERT_FILE`), made on first use."""

    def __init__(self, connect_timeout: float, tls: ssl.SSLContext | None) -> None:
        self._connect_timeout = connect_timeout
        self._tls = tls

    async def open(self, destination: Destination) -> HttpConnection:
        loop = asyncio.get_running_loop()
        key = destination.key
        via = f" through the proxy {destination.proxy.label}" if destination.proxy else ""
        try:
            async with asyncio.timeout(self._connect_timeout):
                sock = await _open_socket(destination)
                if destination.tls:
                    _, connection = await loop.create_connection(
                        lambda: HttpConnection(loop, key),
                        sock=sock,
                        ssl=self._tls_context(),
                        server_hostname=destination.host,
                    )
                else:
                    _, connection = await loop.create_connection(lambda: HttpConnection(loop, key), sock=sock)
        except TimeoutError:
            raise TransportError(
                f"no connection within {self._connect_timeout:.0f}s{via}", timed_out=True
            ) from None
        except OSError as exc:  # ssl.SSLError among them
            raise TransportError(f"{str(exc) or type(exc).__name__}{via}") from None
        return connection

    def _tls_context(self) -> ssl.SSLContext:
        if self._tls is None:
            self._tls = ssl.create_default_context()
        return self._tls


async def _open_socket(destination: Destination) -> socket.socket:
    """A connected socket to the destination, or to its proxy with the tunnel open for https.

    Once the socket is handed to `create_connection`, the loop owns it and
    closes it on failure; before that, it is closed here.
    """
    proxy = destination.proxy
    if proxy is None:
        return await dial(destination.host, destination.port)
    try:
        sock = await dial(proxy.host, proxy.port)
    except OSError as exc:
        raise TransportError(f"could not reach the proxy {proxy.label}: {exc}") from None
    if destination.tls:
        try:
            await open_tunnel(sock, proxy, destination.host, destination.port)
        except BaseException:
            sock.close()
            raise
    return sock
