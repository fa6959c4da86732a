"""Seeded pairs land in the data folder as task folders the suite loads and scores as their keys say."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from panelgate.store.errors import Invalid, NotFound
from panelgate.suite.library import load_catalogue, tasks_dir
from panelgate.suite.mutations import Kind
from panelgate.suite.scoring import Reply, score
from panelgate.suite.seed import SeedPlan
from panelgate.suite.seed_repos import folder_of, register, registered, repos_file
from panelgate.suite.seed_write import seed_into
from panelgate.suite.task import Task
from tests.suite.seeding import SAMPLE_REPO, listing

REASON = " The rest of the answer gives the reason in a sentence or two, as asked."


def registered_sample(data_dir: Path) -> Path:
    register(repos_file(data_dir), "sample", str(SAMPLE_REPO))
    return data_dir


def written(data_dir: Path, task_id: str) -> dict[str, object]:
    found: dict[str, object] = json.loads((tasks_dir(data_dir) / task_id / "task.json").read_text())
    return found


def test_seeded_pairs_load_as_draft_tasks_of_the_suite(tmp_path: Path) -> None:
    pairs = seed_into(registered_sample(tmp_path), SeedPlan(repo="sample", count=4, seed=8))
    catalogue = load_catalogue(tasks_dir(tmp_path))
    assert catalogue.problems == ()
    for pair in pairs:
        bug, control = catalogue.tasks[pair.bug["id"]], catalogue.tasks[pair.control["id"]]
        assert (bug.shape, control.shape) == ("seeded", "control")
        assert bug.draft and control.draft and bug.origin == "data"
        assert written(tmp_path, bug.id) == pair.bug
    runnable = {task.id for task in catalogue.runnable()}
    assert not runnable & {pair.bug["id"] for pair in pairs}


def test_ready_pairs_are_runnable(tmp_path: Path) -> None:
    pairs = seed_into(registered_sample(tmp_path), SeedPlan(repo="sample", count=1, seed=8, draft=False))
    runnable = {task.id for task in load_catalogue(tasks_dir(tmp_path)).runnable()}
    assert {pairs[0].bug["id"], pairs[0].control["id"]} <= runnable


def test_the_faulty_line_as_the_prompt_numbers_it_scores_right_and_no_other(tmp_path: Path) -> None:
    plan = SeedPlan(repo="sample", count=1, kinds=(Kind.COMPARISON,), seed=4)
    (pair,) = seed_into(registered_sample(tmp_path), plan)
    bug = load_catalogue(tasks_dir(tmp_path)).tasks[pair.bug["id"]]
    shown = listing(pair.bug)
    (line,) = [n for n, text in enumerate(shown, start=1) if text != listing(pair.control)[n - 1]]
    assert _right(bug, f"FAULT: line {line}")
    assert not _right(bug, f"FAULT: line {line + 1}")
    assert not _right(bug, "NO FAULT")
    assert score(bug, Reply("ok", "NO FAULT" + REASON)).invented == ("NO FAULT",)


def test_a_deleted_call_scores_on_either_neighbour_and_the_control_on_no_fault(tmp_path: Path) -> None:
    plan = SeedPlan(repo="sample", count=1, kinds=(Kind.REMOVED_CALL,), seed=4)
    (pair,) = seed_into(registered_sample(tmp_path), plan)
    tasks = load_catalogue(tasks_dir(tmp_path)).tasks
    bug, control = tasks[pair.bug["id"]], tasks[pair.control["id"]]
    above, below = pair.fault_lines
    assert _right(bug, f"FAULT: line {above}") and _right(bug, f"FAULT: line {below}")
    assert not _right(bug, f"FAULT: line {below + 1}")
    assert _right(control, "NO FAULT")
    assert score(control, Reply("ok", f"FAULT: line {above}" + REASON)).invented == ("FAULT: line N",)


def _right(task: Task, first_line: str) -> bool:
    return score(task, Reply("ok", first_line + REASON)).right


def test_seeding_twice_writes_new_pairs_beside_the_old(tmp_path: Path) -> None:
    plan = SeedPlan(repo="sample", count=2, seed=8)
    first = seed_into(registered_sample(tmp_path), plan)
    second = seed_into(tmp_path, plan)
    ids = [pair.bug["id"] for pair in first + second]
    assert len(set(ids)) == 4
    assert len(load_catalogue(tasks_dir(tmp_path)).tasks) >= 8


def test_a_registered_name_keeps_its_absolute_folder(tmp_path: Path) -> None:
    file = repos_file(tmp_path)
    register(file, "sample", str(SAMPLE_REPO))
    other = tmp_path / "other"
    other.mkdir()
    register(file, "other", str(other))
    assert registered(file) == {"other": other.resolve(), "sample": SAMPLE_REPO.resolve()}
    register(file, "sample", str(other))
    assert folder_of(file, "sample") == other.resolve()


@pytest.mark.parametrize(
    ("name", "folder", "field", "words"),
    [
        ("Sample", str(SAMPLE_REPO), "repo", "is not a repository name"),
        ("sample", "relative/path", "path", "is not an absolute path"),
        ("sample", "/no/such/folder", "path", "is not a folder"),
        ("sample", "/tmp/a\x00b", "path", "is not a folder"),
        ("sample", str(SAMPLE_REPO / "README.md"), "path", "is not a folder"),
    ],
)
def test_a_bad_registration_is_refused(
    tmp_path: Path, name: str, folder: str, field: str, words: str
) -> None:
    with pytest.raises(Invalid) as refused:
        register(repos_file(tmp_path), name, folder)
    assert refused.value.field == field and words in refused.value.message
    assert not repos_file(tmp_path).exists()


def test_seeding_an_unknown_repository_names_the_known_ones(tmp_path: Path) -> None:
    registered_sample(tmp_path)
    with pytest.raises(NotFound) as refused:
        seed_into(tmp_path, SeedPlan(repo="elsewhere", count=1))
    assert "`elsewhere`" in refused.value.message and "registered: sample" in refused.value.message


def test_a_folder_without_python_is_refused(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    register(repos_file(tmp_path), "empty", str(empty))
    with pytest.raises(Invalid, match="holds no Python modules"):
        seed_into(tmp_path, SeedPlan(repo="empty", count=1))
