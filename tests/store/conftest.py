"""Fixtures for the store's tests: an open, empty database per test.

SQLite in the test's own folder by default: a copy of one database migrated
from nothing at the start of the run (migrating is most of a test's cost).
PostgreSQL when PANELGATE_TEST_DATABASE_URL names one: its public schema is
dropped once per run, so the first test migrates from nothing, and every
table is truncated before each test.
"""

from __future__ import annotations

import asyncio
import os
import shutil
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path

import pytest
from sqlalchemy import text

from panelgate.settings import Settings
from panelgate.store import Database, PanelRecord, SeatRecord
from panelgate.store.connections import make_engine
from panelgate.store.tables import metadata
from tests.support.gateway import database_url, psql


def _store_database_url() -> str | None:
    """The PostgreSQL database the store's tests use; one per worker when pytest-xdist runs several."""
    server_url = os.environ.get("PANELGATE_TEST_DATABASE_URL")
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if not server_url or not worker:
        return server_url
    name = f"panelgate_store_{worker}"
    psql(server_url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    psql(server_url, f'CREATE DATABASE "{name}"')
    return database_url(server_url, name)


POSTGRES_URL = _store_database_url()
T0 = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)

RecordPanel = Callable[..., Awaitable[list[str]]]


def store_settings(home: Path) -> Settings:
    return Settings(home=home, database_url=POSTGRES_URL)


async def empty_postgres(settings: Settings) -> None:
    engine = make_engine(settings.sqlalchemy_url)
    try:
        async with engine.begin() as connection:
            await connection.execute(text("DROP SCHEMA public CASCADE"))
            await connection.execute(text("CREATE SCHEMA public"))
    finally:
        await engine.dispose()


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return store_settings(tmp_path / "data")


SEEDED = {"config_version"}
"""Tables whose rows the migrations write (kept, as `alembic_version` is)."""


async def truncate_everything(database: Database) -> None:
    names = ", ".join(table.name for table in metadata.sorted_tables if table.name not in SEEDED)
    async with database.engine.begin() as connection:
        await connection.execute(text(f"TRUNCATE {names} RESTART IDENTITY CASCADE"))


async def _migrate(settings: Settings) -> None:
    if POSTGRES_URL:
        await empty_postgres(settings)
    database = await Database.open(settings)
    await database.close()


@pytest.fixture(scope="session")
def migrated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The data folder of a database migrated from nothing, once per run."""
    home = tmp_path_factory.mktemp("migrated")
    asyncio.run(_migrate(store_settings(home)))
    return home


@pytest.fixture
async def db(settings: Settings, migrated: Path) -> AsyncIterator[Database]:
    if not POSTGRES_URL:
        settings.ensure_data_dir()
        shutil.copy(migrated / "panelgate.db", settings.data_dir / "panelgate.db")
    database = await Database.open(settings)
    try:
        if POSTGRES_URL:
            await truncate_everything(database)
        yield database
    finally:
        await database.close()


@pytest.fixture
async def bench(db: Database) -> Database:
    """A database with endpoint `local` and models alpha, beta, gamma on it."""
    await db.endpoints.add("local", "http://127.0.0.1:9/v1", kind="local", actor="setup")
    for alias in ("alpha", "beta", "gamma"):
        await db.models.add(alias, f"org/{alias}-7b", "local", actor="setup")
    return db


async def keep_panel(
    db: Database,
    panel_id: str,
    seats: Sequence[tuple[str, str]],
    *,
    collection: str = "core",
    at: datetime = T0,
    shape: str = "general",
    preview: str = "",
    merged: bool = False,
    owes_verdicts: bool = True,
) -> list[str]:
    """Record a panel of `seats` ((alias, status) pairs, the last one the merger when `merged`) in `db`;
    its calls, in seat order."""
    seat_records = []
    for position, (alias, status) in enumerate(seats):
        merger = merged and position == len(seats) - 1
        suffix = "merger" if merger else f"member{position + 1}"
        seat_records.append(
            SeatRecord(
                call=f"{panel_id}.{suffix}",
                panel=panel_id,
                position=position,
                label="merger" if merger else "member",
                kind="merger" if merger else "member",
                alias=alias,
                status=status,  # type: ignore[arg-type]
                seconds=1.5,
                answer="an answer" if status == "ok" else "",
                error="upstream said no" if status == "error" else "",
            )
        )
    panel = PanelRecord(
        id=panel_id,
        collection=collection,
        at=at,
        shape=shape,
        shape_by="collection",
        reply="merged" if merged else "all",
        prompt_preview=preview,
        owes_verdicts=owes_verdicts,
    )
    await db.panels.record(panel, seat_records)
    return [seat.call for seat in seat_records]


@pytest.fixture
def record_panel(db: Database) -> RecordPanel:
    """`keep_panel` in this test's database."""
    return partial(keep_panel, db)


def later(minutes: int) -> datetime:
    return T0 + timedelta(minutes=minutes)
