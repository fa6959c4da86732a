"""Which proxies' `X-Forwarded-For` is believed: those in `PANELGATE_TRUSTED_PROXIES`, and no other.

The client address is what the login throttle counts. uvicorn believes the
forwarded headers of 127.0.0.1 unless told otherwise, so any program on the
machine (or a proxy that passes the header through) could name a new address
for every guess. Here the default is to believe nobody: the socket's peer is
the client. Listing a proxy makes uvicorn take the address it forwarded
(the nearest one it did not itself receive from a listed proxy).
"""

from __future__ import annotations

import ipaddress
from typing import Any

from panelgate.settings import Settings


def trusted_proxies(settings: Settings) -> list[str]:
    """The listed addresses and networks, as written (uvicorn reads both)."""
    return [entry.strip() for entry in settings.trusted_proxies.split(",") if entry.strip()]


def proxy_problems(settings: Settings) -> list[str]:
    """Entries that are neither an address nor a network (`10.0.0.0/8`)."""
    found = []
    for entry in trusted_proxies(settings):
        try:
            ipaddress.ip_network(entry)  # strict, as uvicorn reads it: `10.0.0.1/8` is no network
        except ValueError:
            found.append(f"PANELGATE_TRUSTED_PROXIES: `{entry}` is not an IP address or network (CIDR)")
    return found


def uvicorn_proxy_options(settings: Settings) -> dict[str, Any]:
    """`uvicorn.Config` keywords: forwarded headers read only from the listed proxies, else never."""
    listed = trusted_proxies(settings)
    if not listed:
        return {"proxy_headers": False}
    return {"proxy_headers": True, "forwarded_allow_ips": listed}
