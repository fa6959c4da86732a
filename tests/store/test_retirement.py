"""Retiring a model and restoring it: collections, refusals, evidence kept."""

from __future__ import annotations

import pytest

from panelgate.core.types import CollectionInfo
from panelgate.store import Conflict, Database

from .conftest import RecordPanel


async def test_retire_takes_the_model_out_of_members_and_merger(bench: Database) -> None:
    await bench.collections.save(CollectionInfo("core", ("alpha", "beta", "gamma"), merger="beta"), actor="t")
    retired = await bench.models.retire("beta", "answers nothing", actor="ops")
    assert await bench.collections.get("core") == CollectionInfo("core", ("alpha", "gamma"))
    assert (retired.retired, retired.retired_by, retired.retired_why) == (True, "ops", "answers nothing")


async def test_restore_puts_the_model_back_at_its_place_and_as_merger(bench: Database) -> None:
    await bench.collections.save(CollectionInfo("core", ("alpha", "beta", "gamma"), merger="beta"), actor="t")
    await bench.collections.save(CollectionInfo("side", ("gamma", "beta")), actor="t")
    await bench.models.retire("beta", "", actor="t")
    restored = await bench.models.restore("beta", actor="t")
    assert await bench.collections.list() == [
        CollectionInfo("core", ("alpha", "beta", "gamma"), merger="beta"),
        CollectionInfo("side", ("gamma", "beta")),
    ]
    assert (restored.retired, restored.restore) == (False, None)


async def test_restore_skips_collections_deleted_meanwhile(bench: Database) -> None:
    await bench.collections.save(CollectionInfo("core", ("alpha", "beta")), actor="t")
    await bench.models.retire("beta", "", actor="t")
    await bench.collections.delete("core", actor="t")
    await bench.models.restore("beta", actor="t")
    assert await bench.collections.list() == []


async def test_restore_is_refused_when_the_alias_is_taken(bench: Database) -> None:
    await bench.models.retire("beta", "", actor="t")
    await bench.models.add("beta", "org/beta-v2", "local", actor="t")
    with pytest.raises(Conflict, match="taken by `beta`"):
        await bench.models.restore("beta", actor="t")


async def test_restore_is_refused_when_the_served_id_is_back_on_the_endpoint(bench: Database) -> None:
    await bench.models.retire("beta", "", actor="t")
    await bench.models.add("beta-new", "org/beta-7b", "local", actor="t")
    with pytest.raises(Conflict, match="already on the bench as `beta-new`"):
        await bench.models.restore("beta", actor="t")


async def test_restore_is_refused_when_the_endpoint_was_removed(db: Database) -> None:
    await db.endpoints.add("cloud", "https://api.example/v1", actor="t")
    await db.models.add("solo", "org/solo", "cloud", actor="t")
    await db.models.retire("solo", "", actor="t")
    await db.endpoints.remove("cloud", actor="t")
    gone = await db.models.get("solo")
    assert gone is not None and (gone.endpoint, gone.endpoint_gone) == ("cloud", True)
    with pytest.raises(Conflict, match="endpoint `cloud`, which was removed"):
        await db.models.restore("solo", actor="t")


async def test_restoring_a_model_on_the_bench_is_refused(bench: Database) -> None:
    with pytest.raises(Conflict, match="nothing to restore"):
        await bench.models.restore("alpha", actor="t")


async def test_retiring_keeps_evidence_and_verdicts(bench: Database, record_panel: RecordPanel) -> None:
    [call] = await record_panel("p1", [("alpha", "ok")])
    await bench.verdicts.record(call, useful=True, actor="t")
    await bench.models.retire("alpha", "", actor="t")
    assert (await bench.verdicts.record_counts(None, None))["alpha"]["useful"] == 1
    assert "alpha" in await bench.panels.last_seated()
