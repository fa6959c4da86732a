"""Where a URL points and how it is reached: decided once per URL, then read by every request to it.

A request only reads the fields: the pool key (the route: scheme, host,
port and the proxy it goes through, since a tunnel connection serves one
destination only), the `Host` header, and the request target, which is the
whole URL when the proxy is asked for an http destination (absolute form).
"""

from __future__ import annotations

from typing import NamedTuple
from urllib.parse import urlsplit

from panelgate.upstream.proxy_route import Proxy, ProxyRoutes
from panelgate.upstream.transport_errors import BadRequest

PoolKey = tuple[str, str, int, str]
"""A route: scheme, host, port, and the proxy it goes through ("" for none)."""


class Destination(NamedTuple):
    key: PoolKey
    host: str
    port: int
    tls: bool
    proxy: Proxy | None
    host_header: str
    target: str
    proxy_header: str  # `proxy-authorization: ...\r\n` on each request for a whole URL, else ""


def destination(url: str, routes: ProxyRoutes) -> Destination:
    """`url` read as an absolute http(s) URL, routed as `routes` say; `BadRequest` when it is none."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise BadRequest("the base URL is not a usable http(s) URL") from None
    scheme, host = parts.scheme.lower(), parts.hostname
    if scheme not in ("http", "https") or not host:
        raise BadRequest("the base URL is not an absolute http(s) URL")
    default = 443 if scheme == "https" else 80
    port = port or default
    named = f"[{host}]" if ":" in host else host
    host_header = named if port == default else f"{named}:{port}"
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    if any(c in target for c in " \r\n"):
        raise BadRequest("the base URL holds spaces or line breaks")
    proxy = routes.proxy_for(scheme, host, port)
    key = (scheme, host, port, proxy.label if proxy else "")
    proxy_header = ""
    if proxy is not None and scheme == "http":  # the proxy is asked for the whole URL
        target = f"http://{host_header}{target}"
        proxy_header = f"proxy-authorization: {proxy.authorization}\r\n" if proxy.authorization else ""
    return Destination(key, host, port, scheme == "https", proxy, host_header, target, proxy_header)
