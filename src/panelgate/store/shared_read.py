"""One read for everyone who needs it now: callers arriving while it runs wait for the same one.

A cached copy (the bench, when each model last sat) is dropped by an edit,
and the panels that find it dropped must read it again. Each reading for
itself cost a crowd of a thousand panels a thousand queries; a lock let them
through one per turn of the loop, so the last waited 1.4 s for the others.
Here they all wait for one read and are woken together when it ends. A read
begun under an older generation (before this process's latest edit) is not
joined: its answer may not show the edit.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class SharedRead(Generic[T]):
    def __init__(self, read: Callable[[], Awaitable[T]], name: str) -> None:
        self._read = read
        self._name = name
        self._reading: asyncio.Task[T] | None = None
        self._generation = -1

    async def get(self, generation: int) -> T:
        """The running read if it began at `generation`, else a new one; raises what the read raised."""
        reading = self._reading
        if reading is None or reading.done() or self._generation != generation:
            reading = self._reading = asyncio.create_task(self._run(), name=self._name)
            self._generation = generation
            reading.add_done_callback(_retrieve_failure)
        return await asyncio.shield(reading)  # a caller that gives up does not stop the others' read

    async def _run(self) -> T:
        return await self._read()


def _retrieve_failure(reading: asyncio.Task[T]) -> None:
    """A failure is raised to the callers still waiting; retrieved here so that a read whose callers
    all gave up is not reported as an exception never retrieved."""
    if not reading.cancelled():
        reading.exception()
