"""The word index behind the record's task filter (revision 0029): what it finds, and that it is there."""

from __future__ import annotations

import logging
import os
from datetime import timedelta
from pathlib import Path

import pytest
from alembic import command
from sqlalchemy import Connection, create_engine, insert, make_url, select, text

from panelgate.settings import Settings
from panelgate.store import Database, task_words
from panelgate.store.connections import make_engine
from panelgate.store.migrate import alembic_config
from panelgate.store.tables import evidence, models, panels, seats, verdicts
from panelgate.store.task_words import indexable, rarest_word, verdicts_holding
from tests.support.gateway import database_url, psql

from .conftest import POSTGRES_URL, T0, RecordPanel, keep_panel


async def _holding(db: Database, word: str) -> set[int]:
    async with db.engine.connect() as connection:
        query = verdicts_holding(connection.dialect.name, word)
        return set((await connection.execute(query)).scalars())


async def test_a_word_is_found_in_the_prompt_of_a_judged_panel_or_in_a_note_in_any_case(
    bench: Database, record_panel: RecordPanel
) -> None:
    locked = await record_panel(
        "p1", [("alpha", "ok"), ("beta", "ok")], preview="Review the LOCK in the pool"
    )
    other = await record_panel("p2", [("alpha", "ok")], preview="Summarise the incident")
    await record_panel("p3", [("gamma", "ok")], preview="Why does the lock hang?")  # never judged
    for call in locked:
        await bench.verdicts.record(call, useful=True, actor="t")
    await bench.verdicts.record(other[0], useful=False, note="Missed the Lockfile", actor="t")
    await bench.verdicts.record(other[0], useful=False, note="no, it is fine", actor="t")
    ids = await _verdict_ids(bench)

    assert await _holding(bench, "lock") == {ids[locked[0]], ids[locked[1]], ids["superseded"]}
    assert await _holding(bench, "pool") == {ids[locked[0]], ids[locked[1]]}
    assert await _holding(bench, "fine") == {ids[other[0]]}
    assert await _holding(bench, "nowhere") == set()


async def _verdict_ids(db: Database) -> dict[str, int]:
    """Each call's current verdict id, and the first verdict on p2 (superseded) as `superseded`."""
    async with db.engine.connect() as connection:
        rows = (
            await connection.execute(select(verdicts.c.id, verdicts.c.call).order_by(verdicts.c.id))
        ).all()
    ids = {call: verdict_id for verdict_id, call in rows}
    ids["superseded"] = min(verdict_id for verdict_id, call in rows if call.startswith("p2."))
    return ids


async def test_the_word_index_is_an_index_on_either_database(db: Database) -> None:
    async with db.engine.connect() as connection:
        if POSTGRES_URL:
            found = "SELECT indexname FROM pg_indexes WHERE indexname LIKE 'ix_%_words' ORDER BY indexname"
            assert list((await connection.execute(text(found))).scalars()) == [
                "ix_panels_prompt_words",
                "ix_verdicts_note_words",
            ]
        else:
            found = "SELECT name, sql FROM sqlite_master WHERE name LIKE '%_words' ORDER BY name"
            tables = (await connection.execute(text(found))).all()
            assert [name for name, _ in tables] == ["panel_prompt_words", "verdict_note_words"]
            assert all("fts5" in sql and "trigram" in sql for _, sql in tables)


def test_only_words_the_trigram_index_matches_exactly_are_looked_up_in_it() -> None:
    assert [indexable(word) for word in ("lock", "dns", "ok", "überprüfe", "50%", "a_b", "c:\\tmp")] == [
        True,
        True,
        False,
        False,
        False,
        False,
        False,
    ]


async def test_the_rarest_word_of_a_task_is_the_one_looked_up_first(
    bench: Database, record_panel: RecordPanel
) -> None:
    for number in range(4):
        await record_panel(f"p{number}", [("alpha", "ok")], preview=f"Review the pool, part {number}")
    await record_panel("p9", [("alpha", "ok")], preview="Review the pool's ledger, don't guess")
    async with bench.engine.connect() as connection:
        assert await rarest_word(connection, ["review", "ledger", "pool"]) == "ledger"
        assert await rarest_word(connection, ["don't", "review"]) == "don't"  # quoted safely on either
        assert await rarest_word(connection, ["(:pool", "review"]) == "(:pool"  # no bind parameter
        assert await rarest_word(connection, ["review", "the", "guess"]) == "guess"  # shorter, yet rarer
        assert await rarest_word(connection, ["ok", "überprüfe", "50%"]) is None  # none indexable


async def test_a_task_counts_the_same_whether_its_word_is_found_by_index_or_not(
    bench: Database, record_panel: RecordPanel, monkeypatch: pytest.MonkeyPatch
) -> None:
    for number, preview in enumerate(["Fix the ledger schema", "Ledger report", "Other work"]):
        calls = await record_panel(f"p{number}", [("alpha", "ok"), ("beta", "ok")], preview=preview)
        for call in calls:
            await bench.verdicts.record(call, useful=call.endswith("1"), note="", actor="t")
    by_index = await bench.verdicts.record_counts(None, "LEDGER")
    monkeypatch.setattr(task_words, "FEW_ENOUGH", 0)  # every word now too common to look up
    by_reading = await bench.verdicts.record_counts(None, "LEDGER")

    assert by_index == by_reading
    assert {alias: (counts["useful"], counts["judged"]) for alias, counts in by_index.items()} == {
        "alpha": (2, 2),
        "beta": (0, 2),
    }


@pytest.mark.skipif(not POSTGRES_URL, reason="a PostgreSQL role's rights")
async def test_a_role_that_may_not_create_pg_trgm_keeps_the_filter_and_is_told_how_to_add_the_index(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    server_url = os.environ["PANELGATE_TEST_DATABASE_URL"]
    role = f"panelgate_no_trgm_{os.environ.get('PYTEST_XDIST_WORKER', 'main')}"
    _drop_database_and_role(server_url, role)
    psql(server_url, f'CREATE ROLE "{role}" LOGIN')
    psql(server_url, f'CREATE DATABASE "{role}"')  # owned by the superuser: the role may not add extensions
    psql(database_url(server_url, role), f'GRANT CREATE ON SCHEMA public TO "{role}"')
    url = make_url(server_url).set(username=role, database=role).render_as_string(hide_password=False)
    try:
        with caplog.at_level(logging.WARNING, logger="panelgate.store"):
            db = await Database.open(Settings(home=tmp_path, database_url=url))
        try:
            await db.endpoints.add("local", "http://127.0.0.1:9/v1", kind="local", actor="setup")
            await db.models.add("alpha", "org/alpha-7b", "local", actor="setup")
            (call,) = await keep_panel(db, "p1", [("alpha", "ok")], preview="Port the Ledger schema")
            await keep_panel(db, "p2", [("alpha", "ok")], preview="Other work")
            await db.verdicts.record(call, useful=True, actor="t")
            counts = await db.verdicts.record_counts(None, "ledger")
            async with db.engine.connect() as connection:
                found = "SELECT indexname FROM pg_indexes WHERE indexname LIKE 'ix_%_words'"
                indices = list((await connection.execute(text(found))).scalars())
        finally:
            await db.close()
    finally:
        _drop_database_and_role(server_url, role)

    assert counts["alpha"]["judged"] == 1
    assert indices == []
    assert "pg_trgm could not be used" in caplog.text
    assert "CREATE EXTENSION pg_trgm; CREATE INDEX ix_panels_prompt_words" in caplog.text


def _drop_database_and_role(server_url: str, role: str) -> None:
    psql(server_url, f'DROP DATABASE IF EXISTS "{role}" WITH (FORCE)')
    psql(server_url, f'DROP ROLE IF EXISTS "{role}"')


@pytest.mark.skipif(bool(POSTGRES_URL), reason="migrates a SQLite file of its own step by step")
def test_panels_and_notes_kept_before_the_index_are_found_after_it(tmp_path: Path) -> None:
    engine = create_engine(f"sqlite:///{tmp_path / 'old.db'}")
    try:
        with engine.begin() as connection:
            _keep_two_judged_panels_then_upgrade(connection)
            holding_pool = set(connection.execute(verdicts_holding("sqlite", "pool")).scalars())
            holding_review = set(connection.execute(verdicts_holding("sqlite", "review")).scalars())
    finally:
        engine.dispose()
    assert holding_pool == {1, 2}
    assert holding_review == {1}


@pytest.mark.skipif(not POSTGRES_URL, reason="migrates a PostgreSQL database of its own step by step")
async def test_an_upgraded_postgresql_store_finds_kept_panels_and_its_planner_knows_their_words(
    tmp_path: Path,
) -> None:
    server_url = os.environ["PANELGATE_TEST_DATABASE_URL"]
    name = f"panelgate_words_kept_{os.environ.get('PYTEST_XDIST_WORKER', 'main')}"
    psql(server_url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    psql(server_url, f'CREATE DATABASE "{name}"')
    engine = make_engine(Settings(home=tmp_path, database_url=database_url(server_url, name)).sqlalchemy_url)
    try:
        async with engine.begin() as connection:
            await connection.run_sync(_keep_two_judged_panels_then_upgrade)
        async with engine.connect() as connection:
            holding_pool = set((await connection.execute(verdicts_holding("postgresql", "pool"))).scalars())
            analyzed = "SELECT count(*) FROM pg_stats WHERE tablename = 'ix_panels_prompt_words'"
            statistics = await connection.scalar(text(analyzed))
    finally:
        await engine.dispose()
        psql(server_url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    assert holding_pool == {1, 2}
    assert statistics  # rarest_word's planner estimates rest on them


def _keep_two_judged_panels_then_upgrade(connection: Connection) -> None:
    """A store at 0028 with two judged panels (a word in one's prompt, the other's note), upgraded."""
    command.upgrade(alembic_config(connection), "0028")
    connection.execute(insert(models), [{"id": 1, "alias": "alpha", "served_id": "org/alpha",
        "role": "general", "ad_hoc": False, "options": {}, "retired_why": "", "created_at": T0}])  # fmt: skip
    _keep_a_judged_panel(connection, "p1", "Review the pool", note="")
    _keep_a_judged_panel(connection, "p2", "Summarise it", note="missed the pool")
    command.upgrade(alembic_config(connection), "head")


def _keep_a_judged_panel(connection: Connection, panel: str, prompt: str, note: str) -> None:
    call = f"{panel}.member1"
    connection.execute(insert(panels), [{"id": panel, "collection": "core", "at": T0, "caller": "local",
        "shape": "general", "shape_by": "collection", "reply": "all", "note": "", "skipped": [],
        "prompt_preview": prompt, "seats": 1}])  # fmt: skip
    connection.execute(insert(evidence), [{"call": call, "model_id": 1, "source": "panel",
        "collection": "core", "shape": "general", "at": T0, "status": "ok"}])  # fmt: skip
    connection.execute(insert(seats), [{"call": call, "panel": panel, "position": 0, "label": "member",
        "kind": "member", "model_id": 1, "alias": "alpha", "status": "ok", "seconds": 1.0, "answer": "a",
        "error": ""}])  # fmt: skip
    connection.execute(insert(verdicts), [{"call": call, "useful": True, "note": note, "real_claims": [],
        "false_claims": [], "at": T0 + timedelta(minutes=1), "actor": "t", "source": None}])  # fmt: skip
