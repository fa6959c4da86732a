"""The audit log: a row for every edit, in the edit's transaction, never a secret."""

from __future__ import annotations

import json

import pytest

from panelgate.core.types import CollectionInfo
from panelgate.store import Conflict, Database, Invalid

from .conftest import RecordPanel


async def _trail(db: Database) -> list[tuple[str, str, str, str]]:
    rows = reversed(await db.audit.list(limit=1000))
    return [(row.entity, row.key, row.action, row.actor) for row in rows]


async def test_every_edit_leaves_one_row_naming_who_did_what(db: Database, record_panel: RecordPanel) -> None:
    await db.endpoints.add("local", "http://127.0.0.1:9/v1", actor="ann")
    await db.endpoints.update("local", {"kind": "local"}, actor="ann")
    await db.models.add("alpha", "org/alpha", "local", actor="ann")
    await db.models.update("alpha", {"role": "code"}, actor="bob")
    await db.collections.save(CollectionInfo("core", ("alpha",)), actor="bob")
    await db.models.rename("alpha", "alpha-2", actor="bob")
    await db.gateway.update({"max_calls": 3}, actor="cy")
    [call] = await record_panel("p1", [("alpha-2", "ok")])
    await db.verdicts.record(call, useful=True, actor="cy")
    await db.models.retire("alpha-2", "slow", actor="cy")
    await db.models.restore("alpha-2", actor="cy")
    await db.collections.delete("core", actor="cy")
    assert await _trail(db) == [
        ("endpoint", "local", "add", "ann"),
        ("endpoint", "local", "update", "ann"),
        ("model", "alpha", "add", "ann"),
        ("model", "alpha", "update", "bob"),
        ("collection", "core", "add", "bob"),
        ("collection", "core", "update", "bob"),
        ("model", "alpha-2", "rename", "bob"),
        ("gateway", "limits", "update", "cy"),
        ("verdict", call, "verdict", "cy"),
        ("collection", "core", "update", "cy"),
        ("model", "alpha-2", "retire", "cy"),
        ("collection", "core", "update", "cy"),
        ("model", "alpha-2", "restore", "cy"),
        ("collection", "core", "remove", "cy"),
    ]


async def test_an_update_row_holds_only_what_changed(bench: Database) -> None:
    await bench.models.update("alpha", {"role": "code", "ad_hoc": False, "context_window": 32000}, actor="t")
    [row] = await bench.audit.list(limit=1, entity="model")
    assert (row.before, row.after) == (
        {"role": "general", "context_window": None},
        {"role": "code", "context_window": 32000},
    )


async def test_an_edit_that_changes_nothing_leaves_no_row(bench: Database) -> None:
    before = len(await bench.audit.list())
    await bench.models.update("alpha", {"role": "general"}, actor="t")
    await bench.endpoints.set_default("local", actor="t")
    assert len(await bench.audit.list()) == before


async def test_a_refused_edit_leaves_no_row_and_no_change(bench: Database) -> None:
    before = await bench.audit.list()
    with pytest.raises(Conflict):
        await bench.endpoints.remove("local", actor="t")
    assert await bench.audit.list() == before


async def test_no_row_ever_holds_a_secret(db: Database) -> None:
    secret = "sk-live-abcdef123456"
    await db.endpoints.add("cloud", "https://api.example/v1", key_name="cloud-key", actor="t")
    for bad in (
        {"headers": {"X-Api-Key": secret}},
        {"headers": {"X-Title": secret}},
        {"base_url": f"https://u:{secret}@api.example/v1"},
    ):
        with pytest.raises(Invalid) as refused:
            await db.endpoints.update("cloud", bad, actor="t")
        assert secret not in refused.value.message
    await db.endpoints.update(
        "cloud", {"headers": {"X-Title": {"key_name": "cloud-header-x-title"}}}, actor="t"
    )
    rows = json.dumps([(row.before, row.after) for row in await db.audit.list()])
    assert "cloud-key" in rows
    assert secret not in rows
