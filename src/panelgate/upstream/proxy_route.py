"""Which proxy a destination goes through: `HTTPS_PROXY`, `HTTP_PROXY` and `NO_PROXY`, read once.

A gateway behind a corporate egress proxy reaches no provider unless its
calls go through that proxy, and the usual way to say so is the environment
every HTTP tool reads. It is read when the pool is made (the lower-case
name first, as curl does, then the upper-case one), never per request, and
a destination's route is decided once per URL.

`NO_PROXY` is a comma-separated list: `*` (nothing goes through a proxy),
a domain with or without a leading dot (`example.com` and `.example.com`
both cover `example.com` and every name under it), `host:port` (that port
only), an IP address or a network (`10.0.0.0/8`, `::1`). Only `http://`
proxies are used (`host:port` alone means one); `user:password@` in the
proxy URL is sent as `Proxy-Authorization: Basic` and appears nowhere else:
a proxy is named in messages by its host and port.
"""

from __future__ import annotations

import base64
import ipaddress
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

from panelgate.upstream.transport_errors import BadRequest

_IpNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network


@dataclass(frozen=True, slots=True)
class Proxy:
    """An http proxy: where it listens and, when its URL had them, the credentials as a header value."""

    host: str
    port: int
    authorization: str | None = None

    @property
    def label(self) -> str:
        """How messages name the proxy: host and port, never the credentials."""
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"


class NoProxy:
    """The destinations `NO_PROXY` sends straight to their host."""

    def __init__(self, spec: str) -> None:
        self.everything = False
        self._names: list[str] = []
        self._host_ports: set[tuple[str, int]] = set()
        self._networks: list[_IpNetwork] = []
        for entry in (part.strip().lower() for part in spec.split(",")):
            if entry:
                self._add(entry)

    def _add(self, entry: str) -> None:
        if entry == "*":
            self.everything = True
            return
        host, port = _host_and_port(entry)
        if port is not None:
            self._host_ports.add((host, port))
            return
        try:
            self._networks.append(ipaddress.ip_network(host, strict=False))
        except ValueError:
            self._names.append(host.lstrip("*").lstrip("."))

    def covers(self, host: str, port: int) -> bool:
        host = host.lower()
        if self.everything or (host, port) in self._host_ports:
            return True
        try:
            ip = ipaddress.ip_address(host)
        except ValueError:
            return any(host == name or host.endswith("." + name) for name in self._names if name)
        return any(ip in network for network in self._networks)


class ProxyRoutes:
    """The proxies the environment named when the pool was made, and the hosts that bypass them."""

    def __init__(self, proxies: Mapping[str, Proxy | str], bypass: NoProxy) -> None:
        """`proxies` maps `http`/`https` to a `Proxy`, or to why the one named cannot be used."""
        self._proxies = dict(proxies)
        self._bypass = bypass

    @classmethod
    def from_environment(cls, environ: Mapping[str, str]) -> ProxyRoutes:
        def named(name: str) -> str:
            return (environ.get(name.lower()) or environ.get(name.upper()) or "").strip()

        proxies = {
            scheme: _proxy(named(f"{scheme}_proxy"), f"{scheme.upper()}_PROXY")
            for scheme in ("http", "https")
            if named(f"{scheme}_proxy")
        }
        return cls(proxies, NoProxy(named("no_proxy")))

    def proxy_for(self, scheme: str, host: str, port: int) -> Proxy | None:
        """The proxy for this destination, or None to go straight to it."""
        proxy = self._proxies.get(scheme)
        if proxy is None or self._bypass.covers(host, port):
            return None
        if isinstance(proxy, str):
            raise BadRequest(proxy)
        return proxy


def _proxy(url: str, variable: str) -> Proxy | str:
    """The proxy `url` names, or why it cannot be used (a message without its credentials)."""
    parts = urlsplit(url if "://" in url else f"http://{url}")
    try:
        port = parts.port or 80
    except ValueError:
        port = 0
    if parts.scheme.lower() != "http":
        return f"{variable} names a {parts.scheme}:// proxy; the gateway can use http:// proxies only"
    if not parts.hostname or not port:
        return f"{variable} is not a usable proxy URL (http://host:port)"
    authorization = None
    if parts.username is not None:
        pair = f"{unquote(parts.username)}:{unquote(parts.password or '')}"
        authorization = "Basic " + base64.b64encode(pair.encode("utf-8")).decode("ascii")
    return Proxy(parts.hostname, port, authorization)


def _host_and_port(entry: str) -> tuple[str, int | None]:
    """`[::1]:80`, `[::1]`, `host:80`, `host`, `::1` (a bare IPv6 address has no port)."""
    if entry.startswith("["):
        host, _, rest = entry[1:].partition("]")
        return host, int(rest[1:]) if rest[1:].isdigit() else None
    host, colon, port = entry.rpartition(":")
    if colon and port.isdigit() and ":" not in host:
        return host, int(port)
    return entry, None
