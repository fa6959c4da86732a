"""Opening a TCP socket to a host name the quick way: IPv6 and IPv4 raced (happy eyeballs).

A provider's name often resolves to IPv6 and IPv4 addresses. On a network
whose IPv6 route is broken, trying the addresses one after another waits a
whole connect timeout on the first before the working one is tried, on
every new connection. Here the addresses are tried in turns of family
(RFC 8305's order: the first one the resolver gives, then the other family,
and so on), each started `STAGGER_S` after the one before or as soon as it
fails; the first to connect wins and the others are closed. asyncio's own
`happy_eyeballs_delay` does the same, but the gateway runs on uvloop, whose
`create_connection` has no such option: the socket is opened here and
handed to `create_connection(sock=...)` on either loop.
"""

from __future__ import annotations

import asyncio
import ipaddress
import os
import socket
from collections.abc import Sequence
from typing import Any

STAGGER_S = 0.25

_Address = tuple[int, tuple[Any, ...]]  # a family and its socket address


async def dial(host: str, port: int) -> socket.socket:
    """A connected non-blocking TCP socket to `host`, or an OSError naming how each address failed."""
    loop = asyncio.get_running_loop()
    addresses = _literal(host, port) or _in_turns(await _resolve(loop, host, port))
    if len(addresses) == 1:
        return await _connect(loop, addresses[0])
    return await _race(loop, addresses)


async def _resolve(loop: asyncio.AbstractEventLoop, host: str, port: int) -> list[_Address]:
    found = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP)
    if not found:
        raise OSError(f"{host} has no address")
    return [(family, address) for family, _, _, _, address in found]


def _literal(host: str, port: int) -> list[_Address] | None:
    """An IP address as written in the URL needs no resolver (a scoped IPv6 one goes through it)."""
    if "%" in host:
        return None
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return None
    if ip.version == 6:
        return [(socket.AF_INET6, (host, port, 0, 0))]
    return [(socket.AF_INET, (host, port))]


def _in_turns(addresses: Sequence[_Address]) -> list[_Address]:
    """The resolver's first family first, then the other, alternating (RFC 8305 §4)."""
    if not addresses:
        return []
    first = addresses[0][0]
    ours = [a for a in addresses if a[0] == first]
    others = [a for a in addresses if a[0] != first]
    turns: list[_Address] = []
    for index in range(max(len(ours), len(others))):
        turns.extend(group[index] for group in (ours, others) if index < len(group))
    return turns


async def _connect(loop: asyncio.AbstractEventLoop, address: _Address) -> socket.socket:
    family, sockaddr = address
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setblocking(False)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        await loop.sock_connect(sock, sockaddr)
    except OSError as exc:
        sock.close()
        why = os.strerror(exc.errno) if exc.errno else str(exc) or type(exc).__name__
        raise OSError(exc.errno, f"{why} at {_shown(sockaddr)}") from None
    except BaseException:
        sock.close()
        raise
    return sock


def _shown(sockaddr: tuple[Any, ...]) -> str:
    host, port = str(sockaddr[0]), sockaddr[1]
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


async def _race(loop: asyncio.AbstractEventLoop, addresses: list[_Address]) -> socket.socket:
    """Start an attempt, and the next after `STAGGER_S` or its failure; the first connected wins."""
    running: set[asyncio.Task[socket.socket]] = set()
    failures: list[OSError] = []
    waiting = list(reversed(addresses))
    try:
        while waiting or running:
            if waiting:
                running.add(loop.create_task(_connect(loop, waiting.pop())))
            done, running = await asyncio.wait(
                running, timeout=STAGGER_S if waiting else None, return_when=asyncio.FIRST_COMPLETED
            )
            for attempt in done:
                if attempt.exception() is None:
                    _close_all(done - {attempt})
                    return attempt.result()
                failures.append(_as_os_error(attempt.exception()))
        raise _all_failed(failures)
    finally:
        for attempt in running:
            attempt.cancel()
        if running:
            await asyncio.wait(running)  # a cancelled attempt closes its socket; one that won late
        _close_all(running)  # has its socket closed here


def _close_all(attempts: set[asyncio.Task[socket.socket]]) -> None:
    for attempt in attempts:
        if attempt.done() and not attempt.cancelled() and attempt.exception() is None:
            attempt.result().close()


def _all_failed(failures: list[OSError]) -> OSError:
    said = list(dict.fromkeys(str(failure) for failure in failures))
    return failures[-1] if len(said) == 1 else OSError("; ".join(said))


def _as_os_error(error: BaseException | None) -> OSError:
    return error if isinstance(error, OSError) else OSError(str(error))
