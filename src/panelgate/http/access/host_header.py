"""The `Host` header read strictly: a name or an address, and an optional port, nothing else.

The allow-list compares the host part of the header; a lenient split (the
text before the last colon) let `127.0.0.1:8122@evil.example` and
`127.0.0.1:8122/health?x=` through as "an IP address". Whatever a proxy, a
log or a later reader makes of such a value, it is not a host this gateway
answers to, so anything beyond `name[:port]` / `[v6][:port]` is refused:
userinfo, a path, a query, spaces, an empty or out-of-range port.
"""

from __future__ import annotations

import ipaddress
import re

_HOST = re.compile(r"(?P<name>[a-z0-9](?:[a-z0-9_.-]*[a-z0-9])?|\[[0-9a-f:.]+\])(?::(?P<port>[0-9]{1,5}))?")
"""A DNS name or IPv4 address (letters, digits, dots, hyphens), or a bracketed IPv6 address."""
MAX_CHARS = 300
"""A DNS name is at most 253 characters; a longer header is not read at all."""


def parse_host(header: str) -> tuple[str, int | None] | None:
    """(name, port) of a well-formed `Host` value, lower-case; None for anything else."""
    found = _HOST.fullmatch(header.lower()) if len(header) <= MAX_CHARS else None
    if found is None:
        return None
    name, port = found.group("name"), found.group("port")
    if name.startswith("[") and not _is_ipv6(name[1:-1]):
        return None
    if port is not None and not 0 < int(port) < 65536:
        return None
    return name, int(port) if port is not None else None


def is_ip(name: str) -> bool:
    """An IPv4 address, or an IPv6 one with or without its brackets."""
    try:
        ipaddress.ip_address(name.removeprefix("[").removesuffix("]"))
    except ValueError:
        return False
    return True


def _is_ipv6(text: str) -> bool:
    try:
        return ipaddress.ip_address(text).version == 6
    except ValueError:
        return False
