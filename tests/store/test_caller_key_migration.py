"""Migration 0023: old panels take their key's id only where one key had their caller's name."""

from __future__ import annotations

from pathlib import Path

import pytest
from alembic import command
from sqlalchemy import create_engine, insert, select

from panelgate.store.migrate import alembic_config
from panelgate.store.tables import gateway_keys, panels

from .conftest import POSTGRES_URL, T0


def _key(key_id: int, name: str) -> dict[str, object]:
    return {"id": key_id, "name": name, "hash": f"h{key_id}", "hint": "abcd", "created_at": T0}


def _panel(panel_id: str, caller: str) -> dict[str, object]:
    return {
        "id": panel_id,
        "collection": "core",
        "at": T0,
        "caller": caller,
        "shape": "general",
        "shape_by": "rules",
        "reply": "all",
        "note": "",
        "skipped": [],
        "prompt_preview": "",
        "seats": 0,
    }


@pytest.mark.skipif(bool(POSTGRES_URL), reason="migrates a SQLite file of its own step by step")
def test_old_panels_take_the_id_of_the_one_key_with_their_callers_name(tmp_path: Path) -> None:
    engine = create_engine(f"sqlite:///{tmp_path / 'old.db'}")
    try:
        with engine.begin() as connection:
            command.upgrade(alembic_config(connection), "0022")
            keys = [_key(1, "laptop"), _key(2, "twin"), _key(3, "twin")]
            connection.execute(insert(gateway_keys), keys)
            asked = [_panel("p1", "laptop"), _panel("p2", "twin"), _panel("p3", "local")]
            connection.execute(insert(panels), asked)
            command.upgrade(alembic_config(connection), "head")
            found = connection.execute(select(panels.c.id, panels.c.caller, panels.c.caller_key_id)).all()
    finally:
        engine.dispose()
    assert sorted(found) == [("p1", "laptop", 1), ("p2", "twin", None), ("p3", "local", None)]
