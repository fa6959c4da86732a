"""SQLite writes of the hot path, done in one hop to a writer thread of their own.

Through the async driver every statement of a transaction is a round trip to
aiosqlite's thread and back through the event loop: recording one panel
(BEGIN, a lookup, three inserts, COMMIT) cost about 4 ms of CPU and wall time
where SQLite itself needs 0.2 ms. Here the whole transaction runs as one
synchronous function on a plain `sqlite3` connection in a single dedicated
thread, so the loop hands it over once and is woken once. The connection is
tuned like every other (WAL, `BEGIN IMMEDIATE`), and callers still take their
turn behind the in-process writer lock, so it never races the async writers.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import URL, Connection

T = TypeVar("T")


class SQLiteWriter:
    """A sync engine on the same database file and the one thread that uses it."""

    def __init__(self, url: URL, tune: Callable[..., None], begin: Callable[[Connection], None]) -> None:
        self._url = url.set(drivername="sqlite")
        self._tune = tune
        self._begin = begin
        self._engine: Engine | None = None
        self._thread: ThreadPoolExecutor | None = None

    async def run(self, work: Callable[[Connection], T]) -> T:
        """`work` in one transaction on the writer thread: committed on return, rolled back on raise."""
        if self._thread is None:
            self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="panelgate-sqlite-writer")
        return await asyncio.get_running_loop().run_in_executor(self._thread, self._transaction, work)

    def _transaction(self, work: Callable[[Connection], T]) -> T:
        with self._sync_engine().begin() as connection:
            return work(connection)

    def _sync_engine(self) -> Engine:
        if self._engine is None:  # made on the writer thread, the only one that touches it
            engine = create_engine(self._url, pool_size=1, max_overflow=0)
            event.listen(engine, "connect", self._tune)
            event.listen(engine, "begin", self._begin)
            self._engine = engine
        return self._engine

    def close(self) -> None:
        if self._thread is not None:
            self._thread.shutdown(wait=True)
            self._thread = None
        if self._engine is not None:
            self._engine.dispose()
            self._engine = None
