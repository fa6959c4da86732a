"""`panelgate serve` migrates in a child process: the server itself never loads Alembic.

Each opener is a fresh Python process (this one loaded Alembic long ago),
which opens the database as `serve` does and says whether Alembic is loaded;
the revision stored is then read from the database itself.
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import text

from panelgate.settings import Settings
from panelgate.store import Database
from panelgate.store.connections import make_engine
from panelgate.store.migrate import newest_revision
from panelgate.store.migrate_apart import MigrationFailed
from tests.support.gateway import database_url, psql

OPEN_AS_SERVE_DOES = """
import asyncio, sys
from panelgate.settings import Settings
from panelgate.store import Database

async def main():
    db = await Database.open(Settings(), migrations_apart=True)
    snapshot = await db.bench.snapshot()
    await db.close()
    print("alembic" in sys.modules, "mako" in sys.modules, type(snapshot).__name__)

asyncio.run(main())
"""
SERVER_URL = os.environ.get("PANELGATE_TEST_DATABASE_URL")


def _open_as_serve_does(home: Path, url: str | None = None) -> str:
    environment = {k: v for k, v in os.environ.items() if k != "PANELGATE_DATABASE_URL"}
    environment["PANELGATE_HOME"] = str(home)
    if url:
        environment["PANELGATE_DATABASE_URL"] = url
    command = [sys.executable, "-c", OPEN_AS_SERVE_DOES]
    done = subprocess.run(command, env=environment, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_a_new_sqlite_database_is_migrated_apart_and_the_server_never_loads_alembic(tmp_path: Path) -> None:
    assert _open_as_serve_does(tmp_path) == "False False BenchSnapshot"
    with sqlite3.connect(tmp_path / "panelgate.db") as stored:
        assert stored.execute("SELECT version_num FROM alembic_version").fetchall() == [(newest_revision(),)]
    assert _open_as_serve_does(tmp_path) == "False False BenchSnapshot", "and a second start reads it as is"


@pytest.mark.skipif(not SERVER_URL, reason="needs PANELGATE_TEST_DATABASE_URL (PostgreSQL); CI sets it")
def test_a_new_postgresql_database_is_migrated_apart_and_the_server_never_loads_alembic(
    tmp_path: Path,
) -> None:
    assert SERVER_URL
    name = f"panelgate_apart_{os.environ.get('PYTEST_XDIST_WORKER', 'main')}"
    psql(SERVER_URL, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    psql(SERVER_URL, f'CREATE DATABASE "{name}"')
    url = database_url(SERVER_URL, name)
    assert _open_as_serve_does(tmp_path, url) == "False False BenchSnapshot"

    async def stored() -> list[str]:
        engine = make_engine(Settings(database_url=url).sqlalchemy_url)
        try:
            async with engine.connect() as connection:
                rows = await connection.execute(text("SELECT version_num FROM alembic_version"))
                return [str(row[0]) for row in rows]
        finally:
            await engine.dispose()

    assert asyncio.run(stored()) == [newest_revision()]


async def test_a_database_alembic_cannot_upgrade_stops_the_start_with_alembics_words(tmp_path: Path) -> None:
    with sqlite3.connect(tmp_path / "panelgate.db") as made:
        made.execute("CREATE TABLE alembic_version (version_num VARCHAR(32) NOT NULL PRIMARY KEY)")
        made.execute("INSERT INTO alembic_version VALUES ('from_a_newer_panelgate')")
    with pytest.raises(MigrationFailed) as refused:
        await Database.open(Settings(home=tmp_path), migrations_apart=True)
    assert "from_a_newer_panelgate" in str(refused.value)
    assert str(refused.value).startswith("the database could not be brought to the newest revision: ")
