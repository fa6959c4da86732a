"""The async engine and the two ways the repositories use it: read and write.

SQLite is tuned on every new connection (WAL, `synchronous=NORMAL`, foreign
keys on, a 5 s busy timeout) and SQLAlchemy issues the `BEGIN` itself: reads
begin a plain transaction, writes begin `IMMEDIATE`, so a write that first
reads never fails half-way because another connection wrote in between (a
deferred SQLite transaction cannot wait its way out of that). PostgreSQL
needs neither. A unique or foreign-key violation that slips past the
repositories' own checks (two processes changing the same thing at once)
becomes a `Conflict` asking to try again.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager, nullcontext
from typing import TYPE_CHECKING, Any, TypeVar

from sqlalchemy import event, update
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine
from sqlalchemy.pool import ConnectionPoolEntry

from panelgate.store.bulk import select_rows
from panelgate.store.config_stamp import Stamps
from panelgate.store.errors import Conflict
from panelgate.store.sqlite_writer import InlineSQLiteWriter
from panelgate.store.tables import config_version

if TYPE_CHECKING:  # redis-py is loaded only when Redis is configured
    from panelgate.store.shared.change_notices import ChangeNotices

T = TypeVar("T")

WRITE_OPTION = "panelgate_write"
SQLITE_PRAGMAS = (
    "PRAGMA journal_mode=WAL",
    "PRAGMA synchronous=NORMAL",
    "PRAGMA foreign_keys=ON",
    "PRAGMA busy_timeout=5000",
)
BUMP_CONFIG_VERSION = (
    update(config_version).where(config_version.c.id == 1).values(version=config_version.c.version + 1)
)


def make_engine(url: str) -> AsyncEngine:
    """An async engine for `url` (aiosqlite or asyncpg), SQLite tuned as above."""
    engine = create_async_engine(url, pool_pre_ping=url.startswith("postgresql"))
    if engine.dialect.name == "sqlite":
        event.listen(engine.sync_engine, "connect", _tune_sqlite)
        event.listen(engine.sync_engine, "begin", _begin_sqlite)
    return engine


def _tune_sqlite(dbapi_connection: Any, _record: ConnectionPoolEntry) -> None:
    dbapi_connection.isolation_level = None  # SQLAlchemy emits BEGIN; see _begin_sqlite
    cursor = dbapi_connection.cursor()
    try:
        for pragma in SQLITE_PRAGMAS:
            cursor.execute(pragma)
    finally:
        cursor.close()


def _begin_sqlite(connection: Connection) -> None:
    writing = connection.get_execution_options().get(WRITE_OPTION, False)
    connection.exec_driver_sql("BEGIN IMMEDIATE" if writing else "BEGIN")


class Connections:
    """Hands out transactions: `read()` for queries, `write()` for changes."""

    def __init__(
        self,
        engine: AsyncEngine,
        *,
        stamps: Stamps | None = None,
        notices: ChangeNotices | None = None,
    ) -> None:
        """`stamps` are shared with the other worker processes of this server (see `config_stamp`);
        `notices` tell the other servers on the same Redis about each change (see `change_notices`)."""
        self.engine = engine
        self._writer = engine.execution_options(**{WRITE_OPTION: True})
        # SQLite has one writer at a time; taking turns here instead of in its
        # busy handler (which sleeps and retries) keeps concurrent panels from
        # waiting on each other's sleeps. PostgreSQL needs no such queue.
        sqlite = engine.dialect.name == "sqlite"
        self._one_writer = asyncio.Lock() if sqlite else None
        self._sqlite_writer = (
            InlineSQLiteWriter(engine.url, _tune_sqlite, checkpoint=self._checkpoint) if sqlite else None
        )
        self._edits = 0
        self._stamps = stamps
        self._notices = notices

    @property
    def config_generation(self) -> int:
        """Moves with every committed edit of the configuration (not panels or verdicts).

        This process's edits, or with a shared stamp, those of every worker of this server; with
        notices, also those other servers on the same Redis announced.
        """
        own = self._edits if self._stamps is None else self._stamps.config.read()
        return own if self._notices is None else own + self._notices.heard["config"]

    @property
    def record_generation(self) -> int:
        """Moves when another worker of this server, or another server on the same Redis, records a
        verdict (this process's own verdicts drop its copies at once: `Verdicts`)."""
        own = 0 if self._stamps is None else self._stamps.verdicts.read()
        return own if self._notices is None else own + self._notices.heard["verdict"]

    async def announce_verdict(self) -> None:
        """Tell the other processes a verdict was committed, so their counts are read again."""
        if self._stamps is not None:
            self._stamps.verdicts.move()
        if self._notices is not None:
            await self._notices.announce("verdict")

    @asynccontextmanager
    async def read(self) -> AsyncIterator[AsyncConnection]:
        async with self.engine.connect() as connection:
            yield connection

    @asynccontextmanager
    async def write(self, *, edits_config: bool = True) -> AsyncIterator[AsyncConnection]:
        """One transaction: committed when the block ends, rolled back when it raises.

        `edits_config` says the change is to what a person edits (endpoints,
        models, collections, settings, keys), so cached views of it must be
        re-read: this process's at once, other processes' when they see the
        shared config version (bumped in the same transaction) move.
        """
        try:
            async with self._one_writer or nullcontext(), self._writer.begin() as connection:
                yield connection
                if edits_config:
                    await connection.execute(BUMP_CONFIG_VERSION)
        except IntegrityError as exc:
            raise Conflict(
                "someone changed the same thing at the same moment, so nothing was saved; try again"
            ) from exc
        finally:
            if edits_config:
                self._edits += 1
                if self._stamps is not None:
                    self._stamps.config.move()
        if edits_config and self._notices is not None:
            # Committed: the other servers hear of it before this edit's reply goes out.
            await self._notices.announce("config")

    async def write_all_at_once(self, work: Callable[[Connection], T]) -> T:
        """`work` (plain synchronous Core) in one write transaction, for writes on every panel's path.

        On SQLite it runs inline on the loop's thread (see `sqlite_writer`);
        on PostgreSQL in an ordinary async transaction. It never edits the
        configuration.
        """
        try:
            if self._one_writer is not None and self._sqlite_writer is not None:
                async with self._one_writer:
                    return await self._sqlite_writer.run(work)
            async with self._writer.begin() as connection:
                return await connection.run_sync(work)
        except IntegrityError as exc:
            raise Conflict(
                "someone changed the same thing at the same moment, so nothing was saved; try again"
            ) from exc

    async def read_all_at_once(self, work: Callable[[Connection], T]) -> T:
        """`work` (plain synchronous Core) in one read transaction, for reads on every request's path.

        On SQLite it runs inline on the loop's thread (see `sqlite_writer`), a
        fraction of a thread hop's cost; on PostgreSQL in an async transaction.
        """
        if self._sqlite_writer is not None:
            return self._sqlite_writer.read(work)
        async with self.engine.connect() as connection:
            return await connection.run_sync(work)

    async def config_version(self) -> int:
        """The count of configuration edits committed by every process (see `write`)."""

        def read(connection: Connection) -> int:
            return int(select_rows(connection, config_version, [("id", "=", 1)])[0]["version"])

        return await self.read_all_at_once(read)

    async def _checkpoint(self) -> None:
        """Copy the WAL into the database file while writes go on, then the frames they added while
        this process's writes wait, so that the copy finishes and the next write restarts the WAL
        (`sqlite_writer`); readers never wait. The connection is taken first, so writes are never held
        back while a checkpoint waits for one."""
        async with self.engine.connect() as connection:
            await connection.exec_driver_sql("PRAGMA wal_checkpoint(PASSIVE)")
            async with self._one_writer or nullcontext():
                await connection.exec_driver_sql("PRAGMA wal_checkpoint(PASSIVE)")

    async def close(self) -> None:
        if self._sqlite_writer is not None:
            await self._sqlite_writer.close()
        if self._stamps is not None:
            self._stamps.close()
            self._stamps = None
