"""The queue a running panel or route turn fills and its one reader drains, with keep-alives.

The run is a task of its own, so a caller who hangs up only stops reading;
the reader gets a `Heartbeat` after every quiet interval (a stream writes a
keep-alive then) and stops after the run's last event.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Generic, TypeVar

from panelgate.core.types import Heartbeat

E = TypeVar("E")


class EventFeed(Generic[E]):
    def __init__(self, keepalive_s: float, is_last: Callable[[E], bool]) -> None:
        self._queue: asyncio.Queue[E] = asyncio.Queue()
        self._keepalive_s = keepalive_s
        self._is_last = is_last

    def put(self, event: E) -> None:
        self._queue.put_nowait(event)

    async def first(self, within_s: float) -> E | None:
        """The next event if it comes within `within_s`, else None."""
        try:
            async with asyncio.timeout(within_s):
                return await self._queue.get()
        except TimeoutError:
            return None

    async def events(self, *, heartbeats: bool = True) -> AsyncIterator[E | Heartbeat]:
        """Every event up to the last, with a `Heartbeat` after each quiet interval.

        An event already waiting is taken at once: a member's chunks mostly
        arrive several to a read, and arming and disarming a timer for each
        was a measurable part of a streamed reply's cost."""
        while True:
            if not self._queue.empty():
                event = self._queue.get_nowait()
            elif heartbeats:
                try:
                    async with asyncio.timeout(self._keepalive_s):
                        event = await self._queue.get()
                except TimeoutError:
                    yield Heartbeat()
                    continue
            else:
                event = await self._queue.get()
            yield event
            if self._is_last(event):
                return

    async def collect(self) -> list[E]:
        """Every event up to the last, for a whole (not streamed) reply."""
        events: list[E] = []
        while True:
            event = await self._queue.get()
            events.append(event)
            if self._is_last(event):
                return events
