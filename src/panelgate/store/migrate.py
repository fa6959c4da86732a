"""Brings the database schema to the newest Alembic revision at start.

The Alembic configuration is built here in code, pointing at the
`migrations/` folder inside the package, so it works from any working
directory and from an installed wheel. The upgrade runs on a connection of
the app's own async engine (`run_sync`, Alembic's async pattern) inside one
write transaction, so it never starts a second event loop. Gateway processes
that start together (`serve --workers N`, replicas) set the database up one
at a time: on PostgreSQL under an advisory lock; on SQLite under a file lock
beside the database, taken before the first connection, because a new file is
turned to WAL mode by whoever connects first, and a second process connecting
meanwhile was refused with "database is locked" instead of waiting.

A database already at the newest revision, as it is at every start but the
first after an upgrade, is told so by its `alembic_version` row and the
migrations' file names alone: Alembic (with Mako, about 20 MB that a
process would keep for good) is imported only when there is a migration to
run.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
from collections.abc import AsyncIterator
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import inspect, make_url, text
from sqlalchemy.engine import Connection

from panelgate.store.connections import Connections

if TYPE_CHECKING:
    from alembic.config import Config

MIGRATIONS = Path(__file__).with_name("migrations")
MIGRATION_LOCK = 0x70616E656C67  # any constant shared by every panelgate process


@cache
def newest_revision() -> str:
    """The newest migration's revision: each file is `NNNN_what.py` with `revision = "NNNN"` and
    the one before as its `down_revision` (tests/store/test_migrate.py holds them to that)."""
    return max(path.name[:4] for path in (MIGRATIONS / "versions").glob("[0-9][0-9][0-9][0-9]_*.py"))


def alembic_config(connection: Connection) -> Config:
    """An Alembic config for the package's migrations that runs on `connection`."""
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = connection
    return config


async def upgrade_to_head(connections: Connections, setup_lock: Path | None = None) -> None:
    """`setup_lock`: the file whose lock SQLite processes take in turn (None on PostgreSQL)."""
    async with _one_process_at_a_time(setup_lock), connections.write(edits_config=False) as connection:
        if connection.dialect.name == "postgresql":
            await connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK})
        await connection.run_sync(_upgrade)


async def at_newest_revision(connections: Connections, setup_lock: Path | None = None) -> bool:
    """Whether the database says it is at the newest revision (read without Alembic, under the same
    lock as an upgrade: the first connection to a new SQLite file sets it up)."""
    async with _one_process_at_a_time(setup_lock), connections.read() as connection:
        return await connection.run_sync(lambda sync: _stamped(sync) == {newest_revision()})


def sqlite_setup_lock(url: str) -> Path | None:
    """The file SQLite gateway processes lock in turn to set the database up (None: PostgreSQL, or
    SQLite in memory)."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite" or not parsed.database or parsed.database == ":memory:":
        return None
    database = Path(parsed.database)
    return database.with_name(database.name + ".setup-lock")


@contextlib.asynccontextmanager
async def _one_process_at_a_time(lock: Path | None) -> AsyncIterator[None]:
    if lock is None:
        yield
        return
    with lock.open("a") as handle:
        await asyncio.to_thread(fcntl.flock, handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _upgrade(connection: Connection) -> None:
    if _stamped(connection) == {newest_revision()}:
        return
    from alembic import command

    command.upgrade(alembic_config(connection), "head")


def _stamped(connection: Connection) -> set[str]:
    """The revisions the database says it is at; none for a new database."""
    if not inspect(connection).has_table("alembic_version"):
        return set()
    return {str(row[0]) for row in connection.execute(text("SELECT version_num FROM alembic_version"))}
