"""Verdicts: superseding, idempotence, pending, the record."""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import func, select

from panelgate.store import Database, Invalid, NotFound
from panelgate.store.tables import verdicts

from .conftest import T0, RecordPanel, later


async def _verdict_rows(db: Database) -> int:
    async with db.engine.connect() as connection:
        return (await connection.execute(select(func.count()).select_from(verdicts))).scalar_one()


async def test_a_later_verdict_supersedes_the_earlier_one(bench: Database, record_panel: RecordPanel) -> None:
    [call] = await record_panel("p1", [("alpha", "ok")])
    first = await bench.verdicts.record(call, useful=True, note="good", actor="t")
    second = await bench.verdicts.record(
        call, useful=False, note="wrong after all", false=["x is y"], actor="t"
    )
    current = await bench.verdicts.current(call)
    assert (first, second) == ("created", "superseded")
    assert current is not None
    assert (current.useful, current.note, current.false) == (False, "wrong after all", ("x is y",))


async def test_an_identical_verdict_writes_nothing(bench: Database, record_panel: RecordPanel) -> None:
    [call] = await record_panel("p1", [("alpha", "ok")])
    await bench.verdicts.record(call, useful=True, note="good", real=["a"], actor="t")
    audit_rows = len(await bench.audit.list())
    again = await bench.verdicts.record(call, useful=True, note=" good ", real=["a"], actor="someone else")
    assert (again, await _verdict_rows(bench), len(await bench.audit.list())) == ("unchanged", 1, audit_rows)


async def test_a_verdict_on_an_unknown_call_is_not_found(bench: Database) -> None:
    with pytest.raises(NotFound, match="call id"):
        await bench.verdicts.record("p-none.member1", useful=True, actor="t")


async def test_a_call_id_or_collection_with_a_nul_character_names_nothing(
    bench: Database, record_panel: RecordPanel
) -> None:
    """PostgreSQL fails on a NUL in text; no call or collection has one, so none is found."""
    [call] = await record_panel("p1", [("alpha", "ok")])
    with pytest.raises(NotFound):
        await bench.verdicts.record(call + "\x00", useful=True, actor="t")
    assert await bench.verdicts.current(call + "\x00") is None
    assert await bench.verdicts.pending([call + "\x00", call]) == [call]
    assert await bench.verdicts.collections_of([call, "\x00"]) == {call: "core"}
    assert await bench.verdicts.record_counts("co\x00re", None) == {}


async def test_a_note_or_claim_with_a_nul_character_is_refused_naming_it(
    bench: Database, record_panel: RecordPanel
) -> None:
    [call] = await record_panel("p1", [("alpha", "ok")])
    for fields, field in (({"note": "a\x00"}, "note"), ({"real": ["b\x00"]}, "real")):
        with pytest.raises(Invalid) as refused:
            await bench.verdicts.record(call, useful=True, actor="t", **fields)  # type: ignore[arg-type]
        assert refused.value.field == field


@pytest.mark.parametrize(
    "fields",
    [{"useful": "yes"}, {"useful": True, "real": "one claim"}, {"useful": True, "false": [1]}],
)
async def test_a_verdict_of_the_wrong_types_is_refused(
    bench: Database, record_panel: RecordPanel, fields: dict[str, object]
) -> None:
    [call] = await record_panel("p1", [("alpha", "ok")])
    with pytest.raises(Invalid):
        await bench.verdicts.record(call, actor="t", **fields)  # type: ignore[arg-type]


async def test_verdicts_sent_at_once_on_one_call_all_land(bench: Database, record_panel: RecordPanel) -> None:
    [call] = await record_panel("p1", [("alpha", "ok")])
    notes = [f"note {n}" for n in range(8)]
    await asyncio.gather(*(bench.verdicts.record(call, useful=True, note=note, actor="t") for note in notes))
    assert await _verdict_rows(bench) == len(notes)


async def test_pending_keeps_unjudged_answers_in_order_and_drops_errors_judged_and_unknown(
    bench: Database, record_panel: RecordPanel
) -> None:
    ok, error, empty, judged = await record_panel(
        "p1", [("alpha", "ok"), ("beta", "error"), ("gamma", "empty"), ("alpha", "ok")]
    )
    await bench.verdicts.record(judged, useful=True, actor="t")
    pending = await bench.verdicts.pending([empty, "p-none.member1", error, judged, ok, empty])
    assert pending == [empty, ok]


async def test_a_panel_that_owes_no_verdicts_is_in_no_owed_list_yet_can_be_judged(
    bench: Database, record_panel: RecordPanel
) -> None:
    owing = await record_panel("p1", [("alpha", "ok"), ("beta", "empty")], at=later(1))
    spared = await record_panel("p2", [("gamma", "ok")], at=later(2), owes_verdicts=False)
    assert await bench.verdicts.pending([*spared, *owing]) == owing
    assert [seat.call for seat in await bench.verdicts.owed("local", T0)] == owing
    found = await bench.panels.get("p2")
    assert found is not None and found[0].owes_verdicts is False
    assert await bench.verdicts.record(spared[0], useful=True, actor="t") == "created"


async def test_record_counts_current_verdicts_by_collection_under_the_alias_now(
    bench: Database, record_panel: RecordPanel
) -> None:
    a1, b1 = await record_panel("p1", [("alpha", "ok"), ("beta", "ok")], collection="core", at=later(1))
    [a2] = await record_panel("p2", [("alpha", "ok")], collection="side", at=later(2))
    await bench.verdicts.record(a1, useful=False, actor="t")
    await bench.verdicts.record(a1, useful=True, actor="t")
    await bench.verdicts.record(b1, useful=False, actor="t")
    await bench.verdicts.record(a2, useful=True, actor="t")
    await bench.models.rename("alpha", "alpha-2", actor="t")
    counts = await bench.verdicts.record_counts("core", None)
    assert {alias: (c["useful"], c["notUseful"], c["judged"]) for alias, c in counts.items()} == {
        "alpha-2": (1, 0, 1),
        "beta": (0, 1, 1),
    }
    assert counts["alpha-2"]["lastAt"] is not None


async def test_record_counts_by_task_match_the_prompt_or_the_note_in_any_case(
    bench: Database, record_panel: RecordPanel
) -> None:
    [by_prompt] = await record_panel("p1", [("alpha", "ok")], preview="Review this Parser change")
    [by_note] = await record_panel("p2", [("beta", "ok")], preview="something else")
    [neither] = await record_panel("p3", [("gamma", "ok")], preview="a parser")
    await bench.verdicts.record(by_prompt, useful=True, actor="t")
    await bench.verdicts.record(by_note, useful=True, note="caught the parser REVIEW bug", actor="t")
    await bench.verdicts.record(neither, useful=True, actor="t")
    counts = await bench.verdicts.record_counts(None, "parser review")
    assert sorted(counts) == ["alpha", "beta"]


async def test_useful_on_shape_counts_current_verdicts_of_that_shape(
    bench: Database, record_panel: RecordPanel
) -> None:
    a1, b1 = await record_panel("p1", [("alpha", "ok"), ("beta", "ok")], shape="code")
    [a2] = await record_panel("p2", [("alpha", "ok")], shape="prose")
    await bench.verdicts.record(a1, useful=True, actor="t")
    await bench.verdicts.record(b1, useful=False, actor="t")
    await bench.verdicts.record(a2, useful=False, actor="t")
    assert await bench.verdicts.useful_on_shape("code") == {"alpha": (1, 1), "beta": (0, 1)}
