"""SQLite reads and writes of the hot path, done inline on the event loop's thread.

Recording a panel is a sub-millisecond transaction for SQLite itself, but
every way of doing it off the loop cost far more: through aiosqlite each
statement is a round trip to its thread (about 4 ms a panel), and on a
writer thread of our own every SQLite call releases and re-takes the GIL
from a busy loop (4–5 ms a transaction at 16 panels in flight). Done here,
on a plain `sqlite3` connection, it costs the loop about 0.5 ms and waits
for nothing: WAL with `synchronous=NORMAL` does not sync on commit, other
writers of this process take turns behind the same in-process lock, and
the two things that could block are kept off the loop. Another process
holding the write lock is waited for with `asyncio.sleep` (busy timeout 0
on this connection), and the WAL is checkpointed by the async engine in
the background, never by a commit here (`wal_autocheckpoint=0`).

That checkpoint copies the WAL while writes go on, then copies what they
added meanwhile with this process's writes held back (the same in-process
lock), so it copies every frame and the next write starts the WAL over from
its beginning. A checkpoint running only beside the writes never caught up
under steady load: the WAL grew by every panel written (635 MB in 20 s of
64 panels at a time) and each append to a new block of the file cost the
kernel a page zeroed, 14 % of the gateway's CPU. Writes from another process
(`serve --workers`) are not held back, so there the WAL starts over less
often and grows larger, in steps (docs/benchmarks.md).

Transactions are begun and ended on the driver connection itself: through
SQLAlchemy's `Connection.begin()` they cost a route turn about 60 µs of its
read and 70 µs of its write, more than the statements. `work` still gets the
SQLAlchemy connection; if it executes through SQLAlchemy, SQLAlchemy's own
transaction begins inside ours (it emits nothing on this engine) and ends
with it.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import URL, Connection
from sqlalchemy.exc import OperationalError

T = TypeVar("T")
log = logging.getLogger(__name__)

BUSY_PAUSES_S = (0.001, 0.002, 0.005, 0.01, 0.02, 0.05, *(0.1,) * 49)
"""How long to wait between tries while another process writes: about 5 s in all, as the busy timeout."""
CHECKPOINT_EVERY = 100
"""Transactions between background checkpoints (and `CHECKPOINT_SPACING_S` at least)."""
CHECKPOINT_SPACING_S = 0.5
"""Seconds between background checkpoints at least: each holds this process's writes back for a moment
(two syncs of a few milliseconds), and route turns, a few small transactions each, reach 100
transactions in about 40 ms under load."""


class InlineSQLiteWriter:
    """A sync engine on the same database file, used only from the event loop's thread."""

    def __init__(
        self,
        url: URL,
        tune: Callable[..., None],
        checkpoint: Callable[[], Awaitable[None]],
    ) -> None:
        """`tune` sets up each new driver connection as the async engine's are."""
        self._url = url.set(drivername="sqlite")
        self._tune = tune
        self._checkpoint = checkpoint
        self._engine: Engine | None = None
        self._reading: Connection | None = None
        self._writing: Connection | None = None
        self._since_checkpoint = 0
        self._checkpointed_at = float("-inf")
        self._checkpointing: asyncio.Task[None] | None = None

    def read(self, work: Callable[[Connection], T]) -> T:
        """`work` in one read transaction (WAL readers never wait for a writer)."""
        if self._reading is None:
            self._reading = self._sync_engine().connect()
        return _in_transaction(self._reading, "BEGIN", work)

    async def run(self, work: Callable[[Connection], T]) -> T:
        """`work` in one write transaction: committed on return, rolled back on raise."""
        pauses = iter(BUSY_PAUSES_S)
        while True:
            try:
                result = _in_transaction(self._writing_connection(), "BEGIN IMMEDIATE", work)
            except (sqlite3.OperationalError, OperationalError) as exc:
                pause = next(pauses, None)
                if pause is None or not _is_busy(exc):
                    raise
                await asyncio.sleep(pause)
                continue
            self._committed()
            return result

    def _committed(self) -> None:
        self._since_checkpoint += 1
        if self._since_checkpoint < CHECKPOINT_EVERY or (
            self._checkpointing is not None and not self._checkpointing.done()
        ):
            return
        now = time.monotonic()
        if now - self._checkpointed_at >= CHECKPOINT_SPACING_S:
            self._since_checkpoint, self._checkpointed_at = 0, now
            self._checkpointing = asyncio.create_task(self._checkpoint_quietly())

    async def _checkpoint_quietly(self) -> None:
        try:
            await self._checkpoint()
        except Exception:  # a missed checkpoint only lets the WAL grow until the next one
            log.warning("could not checkpoint the SQLite WAL", exc_info=True)

    def _writing_connection(self) -> Connection:
        """One connection kept for writes (a pool checkout and its reset cost more than the write)."""
        if self._writing is None:
            self._writing = self._sync_engine().connect()
        return self._writing

    def _sync_engine(self) -> Engine:
        if self._engine is None:
            engine = create_engine(self._url, pool_size=2, max_overflow=0)
            event.listen(engine, "connect", self._tune)
            event.listen(engine, "connect", _never_block)
            self._engine = engine
        return self._engine

    async def close(self) -> None:
        if self._checkpointing is not None:
            await asyncio.gather(self._checkpointing, return_exceptions=True)
        for connection in (self._reading, self._writing):
            if connection is not None:
                connection.close()
        self._reading = self._writing = None
        if self._engine is not None:
            self._engine.dispose()
            self._engine = None


def _in_transaction(connection: Connection, begin: str, work: Callable[[Connection], T]) -> T:
    driver = connection.connection.driver_connection
    assert isinstance(driver, sqlite3.Connection), "the inline writer runs on the sqlite3 driver"
    driver.execute(begin)
    try:
        result = work(connection)
    except BaseException:
        if connection.in_transaction():
            connection.rollback()  # SQLAlchemy's, which ends ours with it
        elif driver.in_transaction:  # (a failing statement can end it first)
            driver.execute("ROLLBACK")
        raise
    if connection.in_transaction():
        connection.commit()
    else:
        driver.execute("COMMIT")
    return result


def _never_block(dbapi_connection: sqlite3.Connection, _record: object) -> None:
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute("PRAGMA busy_timeout=0")
        cursor.execute("PRAGMA wal_autocheckpoint=0")
    finally:
        cursor.close()


def _is_busy(exc: sqlite3.OperationalError | OperationalError) -> bool:
    code = getattr(exc.orig if isinstance(exc, OperationalError) else exc, "sqlite_errorcode", None)
    return code in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)
