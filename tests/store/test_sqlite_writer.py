"""SQLite records panels on the loop's thread, yet never stops the loop to wait for a lock."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from panelgate.settings import Settings
from panelgate.store import Database, PanelRecord, SeatRecord, sqlite_writer
from tests.store.conftest import T0


@pytest.fixture
async def sqlite_db(tmp_path: Path) -> AsyncIterator[Database]:
    """SQLite whatever database the run is using: this is about SQLite."""
    database = await Database.open(Settings(home=tmp_path / "data", database_url=None))
    await database.endpoints.add("local", "http://127.0.0.1:9/v1", kind="local", actor="setup")
    await database.models.add("alpha", "org/alpha-7b", "local", actor="setup")
    try:
        yield database
    finally:
        await database.close()


def database_file(tmp_path: Path) -> Path:
    return tmp_path / "data" / "panelgate.db"


async def record(db: Database, number: int) -> str:
    panel = f"p20250301-120000-{number:04x}"
    seat = SeatRecord(
        call=f"{panel}.member1",
        panel=panel,
        position=0,
        label="member",
        kind="member",
        alias="alpha",
        status="ok",
        seconds=1.0,
        answer="an answer",
    )
    await db.panels.record(
        PanelRecord(id=panel, collection="core", at=T0, shape="general", shape_by="collection", reply="all"),
        [seat],
    )
    return panel


async def test_a_panel_waits_for_another_process_writing_while_the_loop_runs_on(
    sqlite_db: Database, tmp_path: Path
):
    other_process = sqlite3.connect(database_file(tmp_path), isolation_level=None)
    other_process.execute("BEGIN IMMEDIATE")
    try:
        recording = asyncio.create_task(record(sqlite_db, 1))
        ticks = 0
        for _ in range(20):
            await asyncio.sleep(0.01)
            ticks += 1
        assert not recording.done()
        assert ticks == 20  # the loop kept turning while the record waited for the lock
    finally:
        other_process.execute("COMMIT")
        other_process.close()
    panel = await asyncio.wait_for(recording, timeout=10)
    stored = await sqlite_db.panels.get(panel)
    assert stored is not None and [seat.answer for seat in stored[1]] == ["an answer"]


async def test_recorded_panels_reach_the_database_file_not_only_the_wal(
    sqlite_db: Database, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(sqlite_writer, "CHECKPOINT_EVERY", 10)
    for number in range(25):
        await record(sqlite_db, number)

    def in_main_file() -> int:
        main_file_only = sqlite3.connect(f"file:{database_file(tmp_path)}?immutable=1", uri=True)
        try:
            return int(main_file_only.execute("SELECT count(*) FROM panels").fetchone()[0])
        except sqlite3.DatabaseError:  # no schema there yet, or a checkpoint is writing the pages now
            return 0
        finally:
            main_file_only.close()

    for _ in range(100):
        if in_main_file() >= 10:
            break
        await asyncio.sleep(0.05)
    assert in_main_file() >= 10


async def test_the_wal_starts_over_while_panels_keep_coming(
    sqlite_db: Database, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """A busy gateway's WAL is reused, not grown by every panel: each checkpoint copies it all."""
    monkeypatch.setattr(sqlite_writer, "CHECKPOINT_EVERY", 5)
    monkeypatch.setattr(sqlite_writer, "CHECKPOINT_SPACING_S", 0.0)
    wal = database_file(tmp_path).with_name("panelgate.db-wal")

    async def keep_recording(first: int) -> None:
        for number in range(first, first + 40):
            await record(sqlite_db, number)

    async def a_burst(start: int) -> int:
        await asyncio.gather(*(keep_recording(start + 40 * writer) for writer in range(16)))
        return wal.stat().st_size

    after_one = await a_burst(0)
    sizes = [after_one, *[await a_burst(640 * burst) for burst in range(1, 6)]]
    stored = await sqlite_db.panels.get(f"p20250301-120000-{6 * 640 - 1:04x}")
    assert stored is not None
    assert sizes[-1] < 3 * after_one, sizes  # without restarts: 6 × the first burst's
