"""Group commit: writes that arrive while one is being written go together in the next.

Under load many panels finish at once; one transaction for all of them costs
about what one costs alone, so a busy gateway writes in batches and an idle
one writes each panel at once (a lone write never waits for company). A
batch that fails is retried item by item, so one bad record refuses only
its own caller.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Generic, TypeVar

T = TypeVar("T")


class WriteBatch(Generic[T]):
    def __init__(self, write_many: Callable[[Sequence[T]], Awaitable[None]], *, max_items: int = 256) -> None:
        self._write_many = write_many
        self._max_items = max_items
        self._pending: list[tuple[T, asyncio.Future[None]]] = []
        self._writer: asyncio.Task[None] | None = None

    async def submit(self, item: T) -> None:
        """Returns once `item` is committed; raises what writing it raised."""
        done = asyncio.get_running_loop().create_future()
        self._pending.append((item, done))
        if self._writer is None or self._writer.done():
            self._writer = asyncio.create_task(self._drain())
        await done

    async def _drain(self) -> None:
        while self._pending:
            batch, self._pending = self._pending[: self._max_items], self._pending[self._max_items :]
            try:
                await self._write_many([item for item, _ in batch])
            except Exception as exc:
                if len(batch) == 1:
                    _settle(batch[0][1], exc)
                    continue
                for item, done in batch:
                    try:
                        await self._write_many([item])
                    except Exception as single:
                        _settle(done, single)
                    else:
                        _settle(done, None)
            else:
                for _, done in batch:
                    _settle(done, None)


def _settle(done: asyncio.Future[None], error: BaseException | None) -> None:
    if done.done():  # its caller stopped waiting; the write went ahead all the same
        return
    if error is None:
        done.set_result(None)
    else:
        done.set_exception(error)
