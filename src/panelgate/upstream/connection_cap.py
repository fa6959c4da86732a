"""The cap on connections per route: requests over it wait in line for one to come back.

A provider (or the egress proxy in front of it) limits how many connections
one client may hold, and every open connection costs a file descriptor and
TLS memory here; past `per_route` connections to one route, a request waits
its turn, first come first served. What it waits for is either a connection
another request just finished with (handed over as it is, still open) or the
place of one that closed, in which it opens its own. The wait has no clock
of its own: it lasts as long as the caller's deadline lets it.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable

from panelgate.upstream.destination import PoolKey
from panelgate.upstream.http_connection import HttpConnection

Line = deque[asyncio.Future[HttpConnection | None]]


class ConnectionCap:
    """How many connections each route holds, and who waits for one.

    `lines` is read by the pool when a connection comes back, without a
    call, so a request pays nothing for the cap while nobody waits.
    """

    def __init__(self, per_route: int) -> None:
        self.lines: dict[PoolKey, Line] = {}
        self._held: dict[PoolKey, int] = {}
        self._per_route = per_route

    def take(self, key: PoolKey) -> bool:
        """Count a new connection of the route, if the route is under the cap."""
        held = self._held.get(key, 0)
        if held >= self._per_route:
            return False
        self._held[key] = held + 1
        return True

    async def wait(self, key: PoolKey, give_back: Callable[[HttpConnection], None]) -> HttpConnection | None:
        """Wait in line: a connection handed over, or None for a place to open one in.

        A request that gives up (its deadline) leaves the line; one handed
        something just as it gave up passes it on (`give_back` for a connection).
        """
        waiter: asyncio.Future[HttpConnection | None] = asyncio.get_running_loop().create_future()
        line = self.lines.setdefault(key, deque())
        line.append(waiter)
        try:
            return await waiter
        except BaseException:
            if waiter.cancelled():
                if waiter in line:
                    line.remove(waiter)
            elif waiter.exception() is None:
                handed = waiter.result()
                if handed is None:
                    self.release(key)
                else:
                    give_back(handed)
            raise
        finally:
            if not line and self.lines.get(key) is line:
                del self.lines[key]

    def hand_over(self, line: Line, connection: HttpConnection | None) -> bool:
        """Give a connection (or a free place: None) to the first request still waiting in `line`."""
        while line:
            waiter = line.popleft()
            if not waiter.done():
                waiter.set_result(connection)
                return True
        return False

    def release(self, key: PoolKey) -> None:
        """A connection of the route closed: its place goes to the next in line, else it is free."""
        line = self.lines.get(key)
        if line and self.hand_over(line, None):
            return
        left = self._held.get(key, 1) - 1
        if left > 0:
            self._held[key] = left
        else:
            self._held.pop(key, None)

    def close(self, error: Exception) -> None:
        """The pool closed: every request still waiting fails with `error`."""
        for line in self.lines.values():
            for waiter in line:
                if not waiter.done():
                    waiter.set_exception(error)
        self.lines.clear()
        self._held.clear()
