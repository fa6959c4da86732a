"""Mined claims become draft tasks the suite loads, scores as the verdict said, and never writes twice."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from panelgate.core.errors import BadRequest
from panelgate.suite.library import load_catalogue, tasks_dir
from panelgate.suite.mine_tasks import (
    LARGE_FIXTURES_CHARS,
    NO_FILES,
    JudgedSeat,
    fixture_path,
    mine,
    task_id,
)
from panelgate.suite.mine_write import write_mined
from panelgate.suite.scoring import Reply, score
from panelgate.suite.task import Task

PANEL = "p20261130-101500-a1b2"
AT = datetime(2026, 11, 30, 10, 20, tzinfo=UTC)
REASON = "\nThe loop's bound is read from the code, as the answer explains at some length."
FILES = {"/home/me/app/loop.py": "for i in range(n + 1):\r\n    total += i\n\n\n", "../lib/é.py": "x = 'é'\n"}


def seat(call: str, real: tuple[str, ...] = (), false: tuple[str, ...] = ()) -> JudgedSeat:
    return JudgedSeat(f"{PANEL}.{call}", "m1", real, false, "ana", AT)


def written_catalogue(data_dir: Path, seats: list[JudgedSeat]) -> dict[str, Task]:
    for task in mine(PANEL, seats, FILES).tasks:
        assert write_mined(tasks_dir(data_dir), task)
    catalogue = load_catalogue(tasks_dir(data_dir), starter=data_dir / "no-starter")
    assert catalogue.problems == ()
    return catalogue.tasks


def test_fixture_paths_stay_recognisable_but_relative_and_plain() -> None:
    assert fixture_path("src/app.py") == "src/app.py"
    assert fixture_path("/home/me/app/loop.py") == "home/me/app/loop.py"
    assert fixture_path("../lib/b.py") == "lib/b.py"
    assert fixture_path("./a.py") == "a.py"
    assert fixture_path("..") == "file"


def test_real_and_false_claims_become_drafts_that_score_as_the_verdict_said(tmp_path: Path) -> None:
    seats = [
        seat("member1", real=("the loop runs n + 1 times",)),
        seat("member2", false=("total is never read",)),
    ]
    tasks = written_catalogue(tmp_path, seats)
    real, false = (
        tasks[task_id(PANEL, "the loop runs n + 1 times")],
        tasks[task_id(PANEL, "total is never read")],
    )
    for task in (real, false):
        assert task.shape == "claim" and task.draft and task.score_in == "first_line"
        assert PANEL in task.source and task.origin == "data"
        assert {a.path: a.text for a in task.attachments} == {
            "home/me/app/loop.py": FILES["/home/me/app/loop.py"],
            "lib/é.py": FILES["../lib/é.py"],
        }
    assert "Claim: the loop runs n + 1 times" in real.prompt
    assert f"{PANEL}.member1" in real.source and f"{PANEL}.member2" in false.source
    assert score(real, Reply("ok", "VERDICT: TRUE" + REASON)).right
    assert not score(real, Reply("ok", "VERDICT: FALSE" + REASON)).right
    assert score(false, Reply("ok", "VERDICT: FALSE" + REASON)).right
    believed = score(false, Reply("ok", "VERDICT: TRUE" + REASON))
    assert believed.invented == ("VERDICT: TRUE",), "believing a false claim is an invention"
    assert load_catalogue(tasks_dir(tmp_path), starter=tmp_path / "none").runnable() == []


def test_fixtures_are_the_files_byte_for_byte(tmp_path: Path) -> None:
    written_catalogue(tmp_path, [seat("member1", real=("claim",))])
    fixtures = tasks_dir(tmp_path) / task_id(PANEL, "claim") / "fixtures"
    assert (fixtures / "home/me/app/loop.py").read_bytes() == FILES["/home/me/app/loop.py"].encode()
    assert (fixtures / "lib/é.py").read_bytes() == FILES["../lib/é.py"].encode()


def test_ids_are_stable_and_mining_again_leaves_the_written_task_alone(tmp_path: Path) -> None:
    assert task_id(PANEL, "The loop  runs") == task_id(PANEL, "the loop runs")
    assert task_id(PANEL, "the loop runs") != task_id("p20261130-101500-ffff", "the loop runs")
    [task] = mine(PANEL, [seat("member1", real=("the loop runs",))], FILES).tasks
    target = tasks_dir(tmp_path)
    assert write_mined(target, task)
    edited = target / task.id / "task.json"
    document = json.loads(edited.read_text())
    edited.write_text(json.dumps({**document, "draft": False}))
    assert not write_mined(target, task)
    assert json.loads(edited.read_text())["draft"] is False
    assert sorted(p.name for p in target.iterdir()) == [task.id]


def test_a_claim_on_two_seats_is_one_task_and_one_judged_both_ways_is_left_out() -> None:
    seats = [
        seat("member1", real=("shared claim", "disputed")),
        seat("member2", real=("Shared  claim",), false=("disputed",)),
    ]
    mining = mine(PANEL, seats, FILES)
    assert [(t.claim, t.call) for t in mining.tasks] == [("shared claim", f"{PANEL}.member1")]
    assert any("`disputed` was judged real on one seat and false on another" in w for w in mining.warnings)


def test_refusals_say_what_is_missing() -> None:
    with pytest.raises(BadRequest, match="no verdict with checked claims") as no_claims:
        mine(PANEL, [seat("member1")], FILES)
    assert no_claims.value.param == "panel"
    with pytest.raises(BadRequest, match=NO_FILES):
        mine(PANEL, [seat("member1", real=("a claim",))], {})
    with pytest.raises(BadRequest, match=r"both become fixtures/a\.py"):
        mine(PANEL, [seat("member1", real=("a claim",))], {"a.py": "1", "./a.py": "2"})
    with pytest.raises(BadRequest, match="both a file and a folder"):
        mine(PANEL, [seat("member1", real=("a claim",))], {"src/a": "1", "/src/a/b.py": "2"})
    with pytest.raises(BadRequest, match="at most 400,000"):
        mine(PANEL, [seat("member1", real=("a claim",))], {"big.py": "x" * 400_001})


def test_large_fixtures_are_mined_with_a_warning() -> None:
    small = mine(PANEL, [seat("member1", real=("a claim",))], {"a.py": "x" * LARGE_FIXTURES_CHARS})
    assert small.warnings == ()
    large = mine(PANEL, [seat("member1", real=("a claim",))], {"a.py": "x" * (LARGE_FIXTURES_CHARS + 1)})
    assert len(large.tasks) == 1
    assert "more than 40,000" in large.warnings[0]
