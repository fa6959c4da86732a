"""Opening the database: migrations, SQLite tuning, UTC times."""

from __future__ import annotations

import asyncio
import fcntl
from datetime import timedelta, timezone
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import Connection, text

from panelgate.settings import Settings
from panelgate.store import Database, PanelRecord
from panelgate.store.tables import metadata
from panelgate.store.task_words import is_word_index
from panelgate.store.usage_book import UsageEntry

from .conftest import POSTGRES_URL, T0, store_settings

sqlite_only = pytest.mark.skipif(bool(POSTGRES_URL), reason="SQLite tuning")


async def _revision(db: Database) -> str:
    async with db.engine.connect() as connection:
        revision: str = (
            await connection.execute(text("SELECT version_num FROM alembic_version"))
        ).scalar_one()
    return revision


async def test_migrations_run_twice_are_a_no_op(db: Database, settings: Settings) -> None:
    await db.endpoints.add("local", "http://127.0.0.1:9/v1", actor="t")
    head = await _revision(db)
    again = await Database.open(settings)
    try:
        assert await _revision(again) == head
        assert [endpoint.name for endpoint in await again.endpoints.list()] == ["local"]
    finally:
        await again.close()


async def test_migrations_do_not_depend_on_the_working_directory(
    db: Database, settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    again = await Database.open(settings)
    await again.close()
    assert list(elsewhere.iterdir()) == []


def _not_the_word_index(name: str | None, kind: str, _parents: object) -> bool:
    """The word index is made by revision 0029 for one database or the other, outside `metadata`."""
    return not is_word_index(name)


@pytest.mark.filterwarnings("ignore:Skipped unsupported reflection of expression-based index")
@pytest.mark.filterwarnings("ignore:autogenerate skipping metadata-specified expression-based index")
async def test_migrations_create_exactly_the_tables_the_code_queries(db: Database) -> None:
    def differences(connection: Connection) -> list[object]:
        context = MigrationContext.configure(connection, opts={"include_name": _not_the_word_index})
        found: list[object] = compare_metadata(context, metadata)
        return found

    async with db.engine.connect() as connection:
        assert await connection.run_sync(differences) == []


@sqlite_only
async def test_sqlite_database_lives_in_the_data_folder(tmp_path: Path) -> None:
    settings = store_settings(tmp_path / "fresh" / "home")
    database = await Database.open(settings)
    await database.close()
    assert (tmp_path / "fresh" / "home" / "panelgate.db").is_file()


@sqlite_only
async def test_a_process_opening_a_new_database_waits_while_another_sets_it_up(tmp_path: Path) -> None:
    """`serve --workers 2` on a new data folder: both workers open the file at once; the second waits
    for the first's setup (WAL mode, migrations) instead of failing to start on a locked file."""
    settings = store_settings(tmp_path / "home")
    settings.ensure_data_dir()
    lock = tmp_path / "home" / "panelgate.db.setup-lock"
    with lock.open("a") as other_process:
        fcntl.flock(other_process, fcntl.LOCK_EX)
        opening = asyncio.create_task(Database.open(settings))
        await asyncio.sleep(0.5)
        assert not opening.done(), "the database was set up while another process held the setup lock"
        assert not (tmp_path / "home" / "panelgate.db").exists()
        fcntl.flock(other_process, fcntl.LOCK_UN)
    database = await asyncio.wait_for(opening, 30)
    await database.close()
    assert (tmp_path / "home" / "panelgate.db").is_file()


@sqlite_only
async def test_sqlite_runs_in_wal_mode_with_foreign_keys_and_a_busy_timeout(db: Database) -> None:
    async with db.engine.connect() as connection:
        pragmas = {
            name: (await connection.execute(text(f"PRAGMA {name}"))).scalar_one()
            for name in ("journal_mode", "synchronous", "foreign_keys", "busy_timeout")
        }
    assert pragmas == {"journal_mode": "wal", "synchronous": 1, "foreign_keys": 1, "busy_timeout": 5000}


async def test_times_come_back_aware_in_utc(db: Database) -> None:
    two_hours_east = T0.astimezone(timezone(timedelta(hours=2)))
    await db.panels.record(
        PanelRecord(
            id="p1", collection="core", at=two_hours_east, shape="general", shape_by="collection", reply="all"
        ),
        [],
    )
    found = await db.panels.get("p1")
    assert found is not None
    assert found[0].at == T0
    assert found[0].at.utcoffset() == timedelta(0)


async def test_closing_lets_go_of_the_connections_even_when_the_last_usage_write_fails(
    tmp_path: Path,
) -> None:
    # A database of its own (SQLite in tmp_path): the table is dropped, and the store tests share theirs.
    database = await Database.open(Settings(home=tmp_path / "data", database_url=None))
    async with database.engine.connect() as connection:  # a pooled connection, checked back in
        await connection.execute(text("SELECT 1"))
    async with database.engine.begin() as connection:
        await connection.execute(text("DROP TABLE usage_ledger"))
    entry = UsageEntry(
        at=T0, endpoint="local", served_id="org/alpha-7b", alias="alpha", caller="local", purpose="panel",
        call=None, status="ok", error_kind=None, attempts=1, tokens_in=None, tokens_out=None,
        tokens_reasoning=None, seconds=1.0,
    )  # fmt: skip
    database.usage.note(entry)
    pool = database.engine.pool
    assert pool.checkedin() >= 1
    with pytest.raises(Exception, match="usage_ledger"):
        await database.close()
    assert pool.checkedin() == 0, "the pool's connections were left open when the last write failed"
