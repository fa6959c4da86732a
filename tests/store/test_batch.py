"""Group commit: panels finishing together are written together, and a bad one refuses only itself."""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import Engine, event

from panelgate.store import Database
from panelgate.store.batch import WriteBatch
from tests.store.conftest import RecordPanel


async def test_panels_finishing_together_share_transactions(bench: Database, record_panel: RecordPanel):
    commits = []

    def count(connection: object) -> None:
        commits.append(1)

    event.listen(Engine, "commit", count)  # every engine: SQLite records on an engine of its own
    try:
        await asyncio.gather(
            *(record_panel(f"p20250301-120000-{i:04x}", [("alpha", "ok"), ("beta", "ok")]) for i in range(20))
        )
    finally:
        event.remove(Engine, "commit", count)
    assert 0 < len(commits) < 20
    for i in range(20):
        assert await bench.panels.get(f"p20250301-120000-{i:04x}") is not None


async def test_a_panel_that_cannot_be_written_refuses_only_its_own_caller(
    bench: Database, record_panel: RecordPanel
):
    await record_panel("p20250301-120000-0001", [("alpha", "ok")])
    outcomes = await asyncio.gather(
        record_panel("p20250301-120000-0001", [("beta", "ok")]),  # the id is taken
        record_panel("p20250301-120000-0002", [("beta", "ok")]),
        return_exceptions=True,
    )
    assert isinstance(outcomes[0], Exception) and not isinstance(outcomes[1], Exception)
    assert await bench.panels.get("p20250301-120000-0002") is not None


async def test_a_lone_write_goes_at_once():
    written: list[list[int]] = []

    async def write_many(items):
        written.append(list(items))

    batch: WriteBatch[int] = WriteBatch(write_many)
    await batch.submit(1)
    await batch.submit(2)
    assert written == [[1], [2]]


async def test_a_failed_batch_raises_the_writers_error():
    async def write_many(items):
        raise ValueError("disk full")

    with pytest.raises(ValueError, match="disk full"):
        await WriteBatch(write_many).submit(1)
