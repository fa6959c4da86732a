"""The counts of current verdicts kept as verdicts are written: they agree with the verdicts themselves."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from panelgate.store import Database
from panelgate.store.verdict_tallies import (
    judged_per_day,
    judged_per_model,
    judged_per_shape,
    judged_sources,
    recount,
)

from .conftest import RecordPanel, later


async def _everything_counted(db: Database) -> tuple[object, ...]:
    today = datetime.now(UTC).date()
    async with db.engine.connect() as connection:
        return (
            await judged_per_model(connection, None, None),
            await judged_per_model(connection, "core", "claude-code"),
            sorted(await judged_per_shape(connection, None)),
            sorted(await judged_per_shape(connection, "side")),
            sorted(await judged_per_day(connection, today - timedelta(days=1), today, None)),
            await judged_sources(connection),
        )


async def test_counts_kept_verdict_by_verdict_match_a_recount_after_supersedes(
    bench: Database, record_panel: RecordPanel
) -> None:
    a1, b1 = await record_panel("p1", [("alpha", "ok"), ("beta", "ok")], collection="core", at=later(1))
    [g2] = await record_panel("p2", [("gamma", "ok")], collection="side", shape="code", at=later(2))
    await bench.verdicts.record(a1, useful=False, actor="t", source="claude-code")
    await bench.verdicts.record(a1, useful=True, actor="t", source="claude-code")
    await bench.verdicts.record(b1, useful=True, actor="t", source="claude-code")
    await bench.verdicts.record(b1, useful=False, note="wrong", actor="t")
    await bench.verdicts.record(g2, useful=True, actor="t", source="judge")
    kept = await _everything_counted(bench)
    async with bench.engine.begin() as connection:
        await recount(connection)
    assert await _everything_counted(bench) == kept
    counts = await bench.verdicts.record_counts("core", None, "claude-code")
    assert {alias: (c["useful"], c["judged"]) for alias, c in counts.items()} == {"alpha": (1, 1)}


async def test_a_superseded_verdicts_source_is_no_longer_listed(
    bench: Database, record_panel: RecordPanel
) -> None:
    [call] = await record_panel("p1", [("alpha", "ok")])
    await bench.verdicts.record(call, useful=True, actor="t", source="claude-code")
    await bench.verdicts.record(call, useful=False, actor="t", source="judge")
    assert await bench.verdicts.sources() == ["judge"]
