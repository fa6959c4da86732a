"""The evidence counts seating reads: current verdicts and review-suite results per (model, shape)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from alembic import command
from sqlalchemy import create_engine, insert, select

from panelgate.core.evidence import Counts
from panelgate.settings import Settings
from panelgate.store import Database
from panelgate.store.migrate import alembic_config
from panelgate.store.suite_book import SuiteAnswer
from panelgate.store.tables import suite_answers
from tests.support.shared_state import on_redis

from .conftest import POSTGRES_URL, T0, RecordPanel, later


async def keep_answer(
    db: Database, alias: str, task: str, *, passed: bool, counted: bool = True, shape: str = "claim"
) -> None:
    """Keep a suite answer of `alias` to `task`, as the desk does after scoring it."""
    model = await db.models.get(alias)
    assert model is not None
    answer = SuiteAnswer(
        task_id=task,
        task_digest="d1",
        shape=shape,
        model_id=model.id,
        alias=alias,
        endpoint=model.endpoint,
        served_id=model.served_id,
        asked_at=T0,
        caller="test",
        status="ok" if counted else "refused",
        counted=counted,
        passed=passed,
    )
    await db.suite.add(answer)


async def test_suite_results_count_on_review_beside_verdicts_under_the_alias_now(
    bench: Database, record_panel: RecordPanel
) -> None:
    [seat] = await record_panel("p1", [("alpha", "ok")], shape="review")
    await bench.verdicts.record(seat, useful=True, actor="t")
    await keep_answer(bench, "alpha", "claim-a", passed=True)
    await keep_answer(bench, "alpha", "bug-b", passed=False, shape="bug")
    await keep_answer(bench, "alpha", "control-c", passed=True, shape="control")
    await keep_answer(bench, "beta", "claim-a", passed=False)
    await bench.models.rename("alpha", "alpha-2", actor="t")
    assert await bench.verdicts.evidence_counts() == {
        ("alpha-2", "review"): Counts(useful=1, suite_right=2, suite_wrong=1),
        ("beta", "review"): Counts(suite_wrong=1),
    }


async def test_a_task_of_a_kind_that_is_a_shape_of_work_counts_on_that_shape(bench: Database) -> None:
    await keep_answer(bench, "alpha", "list-callers", passed=True, shape="enumeration")
    await keep_answer(bench, "alpha", "review-diff", passed=False, shape="review")
    assert await bench.verdicts.evidence_counts() == {
        ("alpha", "enumeration"): Counts(suite_right=1),
        ("alpha", "review"): Counts(suite_wrong=1),
    }


async def test_only_a_models_newest_answer_to_a_task_counts(bench: Database) -> None:
    await keep_answer(bench, "alpha", "claim-a", passed=False)
    await keep_answer(bench, "alpha", "claim-a", passed=True)  # a re-run replaces the wrong answer
    await keep_answer(bench, "alpha", "claim-b", passed=True)
    await keep_answer(bench, "alpha", "claim-b", passed=False, counted=False)  # refused: no answer now
    await keep_answer(bench, "beta", "claim-a", passed=True)
    await keep_answer(bench, "beta", "claim-a", passed=False)
    assert await bench.verdicts.evidence_counts() == {
        ("alpha", "review"): Counts(suite_right=1),
        ("beta", "review"): Counts(suite_wrong=1),
    }


async def test_suite_results_are_bench_wide_and_left_out_of_a_collections_counts(
    bench: Database, record_panel: RecordPanel
) -> None:
    [seat] = await record_panel("p1", [("alpha", "ok")], collection="core", shape="review")
    await bench.verdicts.record(seat, useful=False, actor="t")
    await keep_answer(bench, "alpha", "claim-a", passed=True)
    assert await bench.verdicts.evidence_counts_in("core") == {("alpha", "review"): Counts(not_useful=1)}
    bench_wide = await bench.verdicts.evidence_counts()
    assert bench_wide == {("alpha", "review"): Counts(not_useful=1, suite_right=1)}


async def test_a_kept_suite_answer_shows_in_the_counts_at_once(
    bench: Database, record_panel: RecordPanel
) -> None:
    [seat] = await record_panel("p1", [("alpha", "ok")], at=later(1))
    await bench.verdicts.record(seat, useful=True, actor="t")
    before = await bench.verdicts.evidence_counts()  # kept for a few seconds from here
    await keep_answer(bench, "beta", "claim-a", passed=True)
    after = await bench.verdicts.evidence_counts()
    assert after is not before
    assert after == {**before, ("beta", "review"): Counts(suite_right=1)}


@pytest.mark.skipif(bool(POSTGRES_URL), reason="migrates a SQLite file of its own step by step")
def test_answers_kept_before_passing_was_stored_are_marked_from_their_scores(tmp_path: Path) -> None:
    scores = {
        "right": {"counted": True, "found": ["VERDICT: TRUE"], "missed": [], "invented": []},
        "missed": {"counted": True, "found": [], "missed": ["FAULT: line 3"], "invented": []},
        "invented": {"counted": True, "found": ["NO FAULT"], "missed": [], "invented": ["FAULT: line 9"]},
        "refused": {"counted": False, "why_not": "not sent", "found": [], "missed": [], "invented": []},
    }
    engine = create_engine(f"sqlite:///{tmp_path / 'old.db'}")
    try:
        with engine.begin() as connection:
            command.upgrade(alembic_config(connection), "0015")
            old = [
                {
                    "task_id": task,
                    "task_digest": "d1",
                    "shape": "claim",
                    "model_id": 1,  # SQLite checks no foreign key on this bare connection
                    "alias": "alpha",
                    "endpoint": "local",
                    "served_id": "org/alpha-7b",
                    "asked_at": T0,
                    "caller": "test",
                    "status": "ok" if score["counted"] else "refused",
                    "error": "",
                    "answer": "",
                    "seconds": 1.0,
                    "counted": score["counted"],
                    "score": score,
                }
                for task, score in scores.items()
            ]
            connection.execute(insert(suite_answers), old)
            command.upgrade(alembic_config(connection), "head")
            marked = connection.execute(select(suite_answers.c.task_id, suite_answers.c.passed)).all()
    finally:
        engine.dispose()
    assert dict(marked) == {"right": True, "missed": False, "invented": False, "refused": False}


@pytest.mark.parametrize("shared_by", ["workers of one server", "servers on one Redis"])
async def test_a_verdict_through_one_process_reaches_the_next_panel_on_another(
    bench: Database, record_panel: RecordPanel, settings: Settings, redis_url: str, shared_by: str
) -> None:
    """Every panel weighs the kept counts; a verdict recorded elsewhere drops them at once, through the
    workers' shared stamp or the servers' Redis notices, not after the copy's few seconds."""
    [seat] = await record_panel("p1", [("alpha", "ok")], shape="code")
    if shared_by == "workers of one server":
        settings = settings.model_copy(update={"workers": 2})
    else:
        settings = on_redis(settings, redis_url)
    judging, seating = await Database.open(settings), await Database.open(settings)
    try:
        assert ("alpha", "code") not in await seating.verdicts.evidence_counts()
        await judging.verdicts.record(seat, useful=True, actor="t")
        for _ in range(20):  # a notice crosses loopback in well under a millisecond
            counts = await seating.verdicts.evidence_counts()
            if ("alpha", "code") in counts:
                break
            await asyncio.sleep(0.005)
        assert counts[("alpha", "code")].useful == 1
        assert (await seating.verdicts.judged_counts(None))["alpha"] == (1, 1)
    finally:
        await judging.close()
        await seating.close()
