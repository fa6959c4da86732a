"""Migration 0028: the verdicts given before it are counted, each call once, by its current verdict."""

from __future__ import annotations

from datetime import date, timedelta
from pathlib import Path

import pytest
from alembic import command
from sqlalchemy import create_engine, insert, select

from panelgate.store.migrate import alembic_config
from panelgate.store.tables import evidence, verdict_days, verdict_tallies, verdicts

from .conftest import POSTGRES_URL, T0


def _evidence(call: str, collection: str | None, shape: str | None) -> dict[str, object]:
    return {
        "call": call,
        "model_id": 1,  # SQLite checks no foreign key on this bare connection
        "source": "panel",
        "collection": collection,
        "shape": shape,
        "at": T0,
        "status": "ok",
    }


def _verdict(call: str, useful: bool, days_later: int, source: str | None = None) -> dict[str, object]:
    at = T0 + timedelta(days=days_later)
    return {"call": call, "useful": useful, "note": "", "real_claims": [], "false_claims": [], "at": at,
            "actor": "t", "source": source}  # fmt: skip


@pytest.mark.skipif(bool(POSTGRES_URL), reason="migrates a SQLite file of its own step by step")
def test_old_verdicts_are_counted_by_each_calls_current_verdict(tmp_path: Path) -> None:
    engine = create_engine(f"sqlite:///{tmp_path / 'old.db'}")
    try:
        with engine.begin() as connection:
            command.upgrade(alembic_config(connection), "0027")
            connection.execute(
                insert(evidence), [_evidence("c1", "core", "code"), _evidence("c2", None, None)]
            )
            given = [
                _verdict("c1", False, 0),
                _verdict("c2", False, 0),
                _verdict("c1", True, 1, "claude-code"),
            ]
            connection.execute(insert(verdicts), given)
            command.upgrade(alembic_config(connection), "head")
            tallies = connection.execute(select(verdict_tallies)).all()
            days = connection.execute(select(verdict_days)).all()
    finally:
        engine.dispose()
    assert sorted((*row[:6], row.last_at.date()) for row in tallies) == [
        (1, "", "", "", False, 1, T0.date()),
        (1, "core", "code", "claude-code", True, 1, T0.date() + timedelta(days=1)),
    ]
    assert sorted(tuple(row) for row in days) == [
        (T0.date(), "", False, 1),
        (T0.date() + timedelta(days=1), "core", True, 1),
    ]
    assert all(isinstance(row.day, date) for row in days)
