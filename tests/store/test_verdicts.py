"""Verdicts: superseding, idempotence, pending, the record."""

from __future__ import annotations

import asyncio
import re

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


async def test_a_verdict_on_a_failed_seat_is_refused_as_health_not_usefulness(
    bench: Database, record_panel: RecordPanel
) -> None:
    [failed] = await record_panel("p1", [("alpha", "error")])
    with pytest.raises(Invalid, match="health, not its usefulness") as refused:
        await bench.verdicts.record(failed, useful=False, actor="t")
    assert refused.value.field == "call"
    assert await _verdict_rows(bench) == 0


async def test_an_empty_seat_can_still_be_judged(bench: Database, record_panel: RecordPanel) -> None:
    [empty] = await record_panel("p1", [("alpha", "empty")])
    assert await bench.verdicts.record(empty, useful=False, actor="t") == "created"


async def test_better_than_is_kept_on_the_current_verdict(bench: Database, record_panel: RecordPanel) -> None:
    a, b, c = await record_panel("p1", [("alpha", "ok"), ("beta", "ok"), ("gamma", "empty")])
    await bench.verdicts.record(a, useful=True, better_than=[c, b, c], actor="t")
    current = await bench.verdicts.current(a)
    assert current is not None and current.better_than == (b, c)
    assert (await bench.verdicts.current_of([a, b]))[a].better_than == (b, c)


async def test_a_later_verdict_replaces_the_better_than_list(
    bench: Database, record_panel: RecordPanel
) -> None:
    a, b, c = await record_panel("p1", [("alpha", "ok"), ("beta", "ok"), ("gamma", "ok")])
    await bench.verdicts.record(a, useful=True, better_than=[b, c], actor="t")
    assert await bench.verdicts.record(a, useful=True, better_than=[b], actor="t") == "superseded"
    assert await bench.verdicts.pairwise_counts() == {("alpha", "beta", "general"): 1}


async def test_an_identical_better_than_writes_nothing(bench: Database, record_panel: RecordPanel) -> None:
    a, b, c = await record_panel("p1", [("alpha", "ok"), ("beta", "ok"), ("gamma", "ok")])
    await bench.verdicts.record(a, useful=True, better_than=[b, c], actor="t")
    assert await bench.verdicts.record(a, useful=True, better_than=[c, b], actor="t") == "unchanged"
    assert await _verdict_rows(bench) == 1


async def test_better_than_another_panels_seat_is_refused_naming_it(
    bench: Database, record_panel: RecordPanel
) -> None:
    [mine, _] = await record_panel("p1", [("alpha", "ok"), ("beta", "ok")])
    [theirs] = await record_panel("p2", [("gamma", "ok")])
    with pytest.raises(Invalid, match=re.escape(f"`{theirs}`, a call of panel `p2`")) as refused:
        await bench.verdicts.record(mine, useful=True, better_than=[theirs], actor="t")
    assert refused.value.field == "better_than"


async def test_better_than_the_judged_call_itself_is_refused(
    bench: Database, record_panel: RecordPanel
) -> None:
    [a, _] = await record_panel("p1", [("alpha", "ok"), ("beta", "ok")])
    with pytest.raises(Invalid, match="the call being judged"):
        await bench.verdicts.record(a, useful=True, better_than=[a], actor="t")


async def test_better_than_a_failed_seat_is_refused(bench: Database, record_panel: RecordPanel) -> None:
    [a, failed] = await record_panel("p1", [("alpha", "ok"), ("beta", "error")])
    with pytest.raises(Invalid, match=re.escape(f"`{failed}`, which failed")):
        await bench.verdicts.record(a, useful=True, better_than=[failed], actor="t")


async def test_better_than_an_unknown_call_is_not_found_naming_it(
    bench: Database, record_panel: RecordPanel
) -> None:
    [a] = await record_panel("p1", [("alpha", "ok")])
    with pytest.raises(NotFound, match=re.escape("`p1.member7`")) as refused:
        await bench.verdicts.record(a, useful=True, better_than=["p1.member7"], actor="t")
    assert refused.value.field == "better_than"


async def test_pairwise_counts_are_per_winner_loser_and_shape(
    bench: Database, record_panel: RecordPanel
) -> None:
    review = await record_panel("p1", [("alpha", "ok"), ("beta", "ok"), ("gamma", "ok")], shape="review")
    again = await record_panel("p2", [("alpha", "ok"), ("beta", "ok")], shape="review")
    prose = await record_panel("p3", [("beta", "ok"), ("alpha", "ok")], shape="prose", collection="other")
    await bench.verdicts.record(review[0], useful=True, better_than=review[1:], actor="t")
    await bench.verdicts.record(again[0], useful=True, better_than=[again[1]], actor="t")
    await bench.verdicts.record(prose[0], useful=True, better_than=[prose[1]], actor="t")
    assert await bench.verdicts.pairwise_counts() == {
        ("alpha", "beta", "review"): 2,
        ("alpha", "gamma", "review"): 1,
        ("beta", "alpha", "prose"): 1,
    }
    assert await bench.verdicts.pairwise_counts("other") == {("beta", "alpha", "prose"): 1}


async def test_a_merger_beating_its_own_models_seat_is_not_a_pair(
    bench: Database, record_panel: RecordPanel
) -> None:
    member, merger = await record_panel("p1", [("alpha", "ok"), ("alpha", "ok")], merged=True)
    await bench.verdicts.record(merger, useful=True, better_than=[member], actor="t")
    assert await bench.verdicts.pairwise_counts() == {}
