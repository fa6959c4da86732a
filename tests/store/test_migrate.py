"""Start-up migration: the newest revision is read from the migrations' file names, and a database
already there is opened without loading Alembic (about 20 MB a process would keep for good)."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest
from alembic.config import Config
from alembic.script import ScriptDirectory

from panelgate.store.migrate import MIGRATIONS, newest_revision

from .conftest import POSTGRES_URL

OPEN_AND_SAY = """
import asyncio, sys
from panelgate.settings import Settings
from panelgate.store import Database

async def main():
    db = await Database.open(Settings())
    tables = await db.bench.snapshot()
    await db.close()
    print("alembic" in sys.modules, type(tables).__name__)

asyncio.run(main())
"""


def _assigned(path: Path, name: str) -> str | None:
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == name for t in node.targets):
            value = node.value
            return value.value if isinstance(value, ast.Constant) else None
    return None


def test_each_migration_is_named_by_its_revision_and_follows_the_one_before() -> None:
    files = sorted((MIGRATIONS / "versions").glob("[0-9][0-9][0-9][0-9]_*.py"))
    assert len(files) == len(list((MIGRATIONS / "versions").glob("*.py"))), "every migration is NNNN_what.py"
    previous = None
    for path in files:
        assert _assigned(path, "revision") == path.name[:4], path.name
        assert _assigned(path, "down_revision") == previous, path.name
        previous = path.name[:4]


def test_the_newest_revision_is_alembics_head() -> None:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    assert ScriptDirectory.from_config(config).get_heads() == [newest_revision()]


@pytest.mark.skipif(bool(POSTGRES_URL), reason="opens a SQLite data folder of its own in two processes")
def test_alembic_runs_for_a_new_database_and_stays_unloaded_for_one_at_the_newest(tmp_path: Path) -> None:
    environment = {**os.environ, "PANELGATE_HOME": str(tmp_path)}
    environment.pop("PANELGATE_DATABASE_URL", None)

    def open_once() -> str:
        done = subprocess.run(
            [sys.executable, "-c", OPEN_AND_SAY], env=environment, capture_output=True, text=True, timeout=60
        )
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()

    assert open_once() == "True BenchSnapshot", "a new database is migrated by Alembic"
    assert open_once() == "False BenchSnapshot", "a database at the newest revision is opened without it"
