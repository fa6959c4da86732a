"""Loopback ports for the servers the tests start, chosen where no outgoing connection can take them.

A port the kernel hands out for `bind(("127.0.0.1", 0))` comes from the
ephemeral range, the same range every outgoing connection's own port is
drawn from. Between the moment a test learns such a port and the moment
its server binds it (a second for an in-process gateway, more for a child
process), any client connection of any test running beside it may take it,
and the server cannot start ("address already in use"). Below the
ephemeral range, only another server can hold a port, and a port is handed
out only after a bind on it succeeds.
"""

from __future__ import annotations

import random
import socket
from pathlib import Path

EPHEMERAL = Path("/proc/sys/net/ipv4/ip_local_port_range")
LOWEST = 10_000
"""Below this are the ports well-known services may hold."""

_draw = random.SystemRandom()
"""Not the `random` module's generator, which a test may seed: parallel runs would draw alike."""


def _ephemeral_start() -> int:
    try:
        return int(EPHEMERAL.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32_768  # Linux's default


def free_port() -> int:
    """A loopback port below the ephemeral range that nothing holds now."""
    highest = max(LOWEST + 1_000, _ephemeral_start() - 1)
    for _ in range(500):
        port = _draw.randint(LOWEST, highest)
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
        return port
    raise RuntimeError(f"no free loopback port between {LOWEST} and {highest}")
