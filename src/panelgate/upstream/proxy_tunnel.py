"""A CONNECT tunnel through an http proxy, opened on a bare socket before TLS starts.

An https destination behind a proxy is reached by asking the proxy to
connect a byte pipe to it (`CONNECT host:port`); TLS then runs through the
pipe end to end, the certificate checked and SNI sent for the destination,
so the proxy sees neither the key nor the prompt. The exchange is done on
the socket itself, before any transport exists, so the ordinary
`create_connection(sock=..., ssl=...)` starts TLS on the tunnel on either
event loop (no `start_tls` over a running protocol).
"""

from __future__ import annotations

import asyncio
import socket

from panelgate.upstream.proxy_route import Proxy
from panelgate.upstream.transport_errors import ProxyRefused, TransportError

_MAX_HEAD_BYTES = 64 * 1024


async def open_tunnel(sock: socket.socket, proxy: Proxy, host: str, port: int) -> None:
    """Ask `proxy`, connected on `sock`, for a tunnel to `host:port`; a `TransportError` if it refuses."""
    loop = asyncio.get_running_loop()
    target = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    lines = [f"CONNECT {target} HTTP/1.1\r\nhost: {target}\r\nuser-agent: panelgate\r\n"]
    if proxy.authorization:
        lines.append(f"proxy-authorization: {proxy.authorization}\r\n")
    await loop.sock_sendall(sock, "".join(lines).encode("latin-1") + b"\r\n")
    head = b""
    while b"\r\n\r\n" not in head:
        data = await loop.sock_recv(sock, 4096)
        if not data:
            raise TransportError(
                f"the proxy {proxy.label} closed the connection instead of a tunnel to {target}"
            )
        head += data
        if len(head) > _MAX_HEAD_BYTES:
            raise TransportError(f"the proxy {proxy.label} sent a head of over {_MAX_HEAD_BYTES:,} bytes")
    status, reason = _status(head.partition(b"\r\n")[0])
    if not 200 <= status < 300:
        said = f"{status} {reason}".strip() if status else "a reply that is not HTTP"
        raise ProxyRefused(f"the proxy {proxy.label} refused a tunnel to {target}: {said}", status=status)
    if head.partition(b"\r\n\r\n")[2]:  # TLS speaks first: a proxy has nothing to say yet
        raise TransportError(f"the proxy {proxy.label} sent bytes before the tunnel to {target} opened")


def _status(line: bytes) -> tuple[int, str]:
    """`HTTP/1.1 407 Proxy Authentication Required` → (407, the words, printable and short)."""
    parts = line.decode("latin-1").split(" ", 2)
    if len(parts) < 2 or not parts[0].startswith("HTTP/") or not parts[1].isdigit():
        return 0, ""
    words = parts[2] if len(parts) > 2 else ""
    return int(parts[1]), "".join(c for c in words if c.isprintable())[:80]
