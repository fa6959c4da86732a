"""The cached view of the bench: an edit here shows at once, another process's within its max age."""

from __future__ import annotations

import asyncio

from panelgate.core.types import CollectionInfo
from panelgate.settings import Settings
from panelgate.store import Database


async def test_an_edit_in_this_process_shows_at_once(bench: Database):
    assert "core" not in (await bench.bench.snapshot()).collections
    await bench.collections.save(CollectionInfo(name="core", members=("alpha",)), actor="t")
    assert (await bench.bench.snapshot()).collections["core"].members == ("alpha",)
    await bench.models.rename("alpha", "first", actor="t")
    snapshot = await bench.bench.snapshot()
    assert "first" in snapshot.roster and snapshot.collections["core"].members == ("first",)


async def test_a_panel_or_verdict_does_not_drop_the_copy(bench: Database, record_panel):
    before = await bench.bench.snapshot()
    calls = await record_panel("p20250301-120000-0001", [("alpha", "ok")])
    await bench.verdicts.record(calls[0], useful=True, actor="t")
    assert await bench.bench.snapshot() is before


async def test_another_process_edit_shows_soon_after_the_max_age_without_a_panel_waiting(
    bench: Database, settings: Settings
):
    other = await Database.open(settings)
    try:
        other.bench._max_age_s = 0.2
        before = await other.bench.snapshot()
        assert "core" not in before.collections
        await bench.collections.save(CollectionInfo(name="core", members=("alpha",)), actor="t")
        assert await other.bench.snapshot() is before
        await asyncio.sleep(0.3)
        assert await other.bench.snapshot() is before  # served at once; the re-read runs behind it
        for _ in range(100):
            if "core" in (await other.bench.snapshot()).collections:
                break
            await asyncio.sleep(0.05)
        assert (await other.bench.snapshot()).collections["core"].members == ("alpha",)
    finally:
        await other.close()
