"""Turns of the event loop, counted: how a test tells "woken together" from "one a turn" without a clock."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncEngine

T = TypeVar("T")


class TurnCounter:
    """A busy task that yields once per turn of the loop; `turns` is how many it has seen."""

    def __init__(self) -> None:
        self.turns = 0
        self._task: asyncio.Task[None] | None = None

    async def __aenter__(self) -> TurnCounter:
        self._task = asyncio.create_task(self._count())
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._task is not None:
            self._task.cancel()

    async def _count(self) -> None:
        while True:
            self.turns += 1
            await asyncio.sleep(0)


async def crowd(ask: Callable[[], Awaitable[T]], size: int) -> list[tuple[int, T]]:
    """`size` callers of `ask` at once: each one's answer, with the turn of the loop it came back on."""
    async with TurnCounter() as counter:

        async def one() -> tuple[int, T]:
            found = await ask()
            return counter.turns, found

        return await asyncio.gather(*(one() for _ in range(size)))


def statements_run(engine: AsyncEngine) -> list[str]:
    """Every SQL statement `engine` runs from now on, appended as it runs."""
    statements: list[str] = []
    event.listen(engine.sync_engine, "before_cursor_execute", lambda *a: statements.append(a[2]))
    return statements
