"""Loopback ports for the servers the tests start, chosen where no outgoing connection can take them.

A port the kernel hands out for `bind(("127.0.0.1", 0))` comes from the
ephemeral range, the same range every outgoing connection's own port is
drawn from. Between the moment a test learns such a port and the moment
its server binds it (a second for an in-process gateway, more for a child
process), any client connection of any test running beside it may take it,
and the server cannot start ("address already in use"). Below the
ephemeral range, only another server can hold a port, and a port is handed
out only after a bind on it succeeds.

Another test's server can still take it in that moment: CI runs the SQLite
and PostgreSQL suites side by side, each on pytest workers of its own, and
two of them drawing the same port a second apart both found it free (once
in a CI run: "address already in use" on an in-process gateway). So a port
handed out is claimed first, by a file only one process can create, and no
process hands it out again for ten minutes at least, well past the time any
server takes to bind its port.
"""

from __future__ import annotations

import os
import random
import shutil
import socket
import tempfile
import time
from pathlib import Path

EPHEMERAL = Path("/proc/sys/net/ipv4/ip_local_port_range")
LOWEST = 10_000
"""Below this are the ports well-known services may hold."""

CLAIMS = Path(tempfile.gettempdir()) / f"panelgate-test-ports-{os.getuid()}"
CLAIM_SECONDS = 600
"""How long a claim keeps a port from other draws, at least: well past the slowest server's start."""

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
        if _claimed(port):
            return port
    raise RuntimeError(f"no free loopback port between {LOWEST} and {highest}")


def _claimed(port: int) -> bool:
    """Whether this process now holds `port`'s claim.

    Claims are files in a folder per `CLAIM_SECONDS` of the clock; a port
    claimed in this period or the last is taken, so a claim holds for one
    to two periods, and creating the file is the one step that decides."""
    period = int(time.time() // CLAIM_SECONDS)
    if (CLAIMS / str(period - 1) / str(port)).exists():
        return False
    folder = CLAIMS / str(period)
    folder.mkdir(parents=True, exist_ok=True)
    try:
        os.close(os.open(folder / str(port), os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:
        return False
    for past in CLAIMS.iterdir():
        if past.name.isdigit() and int(past.name) < period - 1:
            shutil.rmtree(past, ignore_errors=True)
    return True
