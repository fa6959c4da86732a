"""Recording panels: seats, evidence, staleness, recent panels."""

from __future__ import annotations

from sqlalchemy import select

from panelgate.core.types import Skip
from panelgate.store import Database, PanelRecord
from panelgate.store.tables import evidence
from tests.support.loop_turns import crowd, statements_run

from .conftest import T0, RecordPanel, later


async def _evidence(db: Database) -> list[tuple[str, str, str]]:
    query = select(evidence.c.call, evidence.c.source, evidence.c.status).order_by(evidence.c.call)
    async with db.engine.connect() as connection:
        return [tuple(row) for row in (await connection.execute(query)).all()]


async def test_a_panel_is_read_back_with_its_seats_in_order(
    bench: Database, record_panel: RecordPanel
) -> None:
    calls = await record_panel("p1", [("beta", "ok"), ("alpha", "error")], preview="hello")
    found = await bench.panels.get("p1")
    assert found is not None
    panel, seats = found
    assert (panel.seats, panel.prompt_preview, panel.at) == (2, "hello", T0)
    assert [(seat.call, seat.alias, seat.status) for seat in seats] == [
        (calls[0], "beta", "ok"),
        (calls[1], "alpha", "error"),
    ]


async def test_every_seat_on_the_bench_leaves_evidence_and_the_merger_is_a_merge(
    bench: Database, record_panel: RecordPanel
) -> None:
    await record_panel("p1", [("alpha", "ok"), ("beta", "error"), ("gamma", "ok")], merged=True)
    assert await _evidence(bench) == [
        ("p1.member1", "panel", "ok"),
        ("p1.member2", "panel", "error"),
        ("p1.merger", "merge", "ok"),
    ]


async def test_a_seat_whose_model_is_not_on_the_bench_is_recorded_without_evidence(
    bench: Database, record_panel: RecordPanel
) -> None:
    await bench.models.retire("beta", "", actor="t")
    await record_panel("p1", [("alpha", "ok"), ("beta", "ok")])
    seat = await bench.panels.seat("p1.member2")
    assert seat is not None and seat.model_id is None
    assert [call for call, _, _ in await _evidence(bench)] == ["p1.member1"]


async def test_skips_are_kept_and_the_preview_is_cut_to_200_characters(bench: Database) -> None:
    skip = Skip("member", "beta", "cannot see images")
    panel = PanelRecord(
        "p1", "core", T0, "vision", "images", "all", skipped=(skip,), prompt_preview="x" * 500
    )
    await bench.panels.record(panel, [])
    found = await bench.panels.get("p1")
    assert found is not None
    assert (found[0].skipped, len(found[0].prompt_preview)) == ((skip,), 200)


async def test_an_unknown_panel_or_seat_is_none(bench: Database) -> None:
    assert (await bench.panels.get("p-none"), await bench.panels.seat("p-none.member1")) == (None, None)


async def test_last_seated_is_the_latest_evidence_and_follows_renames(
    bench: Database, record_panel: RecordPanel
) -> None:
    await record_panel("p1", [("alpha", "ok"), ("beta", "ok")], at=later(1))
    await record_panel("p2", [("alpha", "error")], at=later(5))
    await bench.models.rename("alpha", "alpha-2", actor="t")
    assert await bench.panels.last_seated() == {"alpha-2": later(5), "beta": later(1)}


async def test_evidence_from_a_route_turn_counts_as_seated(bench: Database) -> None:
    kept = await bench.panels.record_evidence(
        "c1.1", "gamma", source="route", collection="core", shape=None, at=later(9), status="ok"
    )
    lost = await bench.panels.record_evidence(
        "c1.2", "nobody", source="route", collection="core", shape=None, at=later(9), status="ok"
    )
    assert (kept, lost, await bench.panels.last_seated()) == (True, False, {"gamma": later(9)})


async def test_recent_panels_come_newest_first_and_filter_by_collection(
    bench: Database, record_panel: RecordPanel
) -> None:
    await record_panel("p1", [("alpha", "ok")], collection="core", at=later(1))
    await record_panel("p2", [("beta", "ok")], collection="side", at=later(2))
    await record_panel("p3", [("gamma", "ok"), ("alpha", "ok")], collection="core", at=later(3))
    everything = await bench.panels.recent()
    core = await bench.panels.recent(limit=5, collection="core")
    assert [panel.id for panel, _ in everything] == ["p3", "p2", "p1"]
    assert [(panel.id, [seat.alias for seat in seats]) for panel, seats in core] == [
        ("p3", ["gamma", "alpha"]),
        ("p1", ["alpha"]),
    ]


async def test_a_crowd_of_panels_after_an_edit_shares_one_read_of_when_each_model_last_sat(
    bench: Database, record_panel: RecordPanel
) -> None:
    await record_panel("p1", [("alpha", "ok"), ("beta", "ok")], at=later(1))
    await bench.panels.last_seated(cached=True)
    await bench.models.rename("alpha", "alpha-2", actor="t")  # an edit drops the kept copy
    statements = statements_run(bench.engine)
    seen = await crowd(lambda: bench.panels.last_seated(cached=True), 200)
    assert {tuple(sorted(found.items())) for _, found in seen} == {
        (("alpha-2", later(1)), ("beta", later(1)))
    }
    assert sum("max(evidence.at)" in statement for statement in statements) == 1, "one read for the crowd"
    finished = [turn for turn, _ in seen]
    assert max(finished) - min(finished) <= 1, "woken together"
