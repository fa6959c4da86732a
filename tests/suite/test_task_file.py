"""Reading task folders: a good one becomes a task, a bad one a problem naming its file and field."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from panelgate.suite.library import load_catalogue
from panelgate.suite.task import AnyOf, Attachment, Pattern, Phrase
from panelgate.suite.task_file import TaskProblem, read_task

GOOD: dict[str, Any] = {
    "id": "claim-x",
    "title": "A claim",
    "shape": "claim",
    "prompt": "Is it true?",
    "attach": ["src/x.py"],
    "must_find": ["NO FAULT", {"any_of": ["FAULT: line 3", "FAULT: line 4"]}],
    "must_not_claim": [{"regex": r"VERDICT:\s*TRUE", "label": "VERDICT: TRUE"}],
    "score_in": "first_line",
}


def folder(root: Path, data: Any, *, name: str = "claim-x", files: dict[str, str] | None = None) -> Path:
    where = root / name
    (where / "fixtures").mkdir(parents=True)
    for path, text in {"src/x.py": "def f():\n    return 1\n", **(files or {})}.items():
        (where / "fixtures" / path).parent.mkdir(parents=True, exist_ok=True)
        (where / "fixtures" / path).write_text(text)
    (where / "task.json").write_text(data if isinstance(data, str) else json.dumps(data))
    return where


def problem(tmp_path: Path, data: Any, **options: Any) -> TaskProblem:
    read = read_task(folder(tmp_path, data, **options), "data")
    assert isinstance(read, TaskProblem), read
    return read


def test_a_good_folder_becomes_a_task_with_its_fixtures_and_clauses(tmp_path: Path) -> None:
    task = read_task(folder(tmp_path, GOOD), "data")
    assert not isinstance(task, TaskProblem), task
    assert task.attachments == (Attachment("src/x.py", "def f():\n    return 1\n"),)
    assert task.must_find == (Phrase("NO FAULT"), AnyOf(("FAULT: line 3", "FAULT: line 4")))
    assert task.must_not_claim == (Pattern(r"VERDICT:\s*TRUE", "VERDICT: TRUE"),)
    assert (task.score_in, task.min_answer_chars, task.draft, task.origin) == (
        "first_line",
        40,
        False,
        "data",
    )
    assert len(task.digest) == 16


def test_the_digest_follows_the_question_and_its_scoring_not_the_title(tmp_path: Path) -> None:
    def digest(where: str, **changes: Any) -> str:
        task = read_task(folder(tmp_path / where, {**GOOD, **changes}), "data")
        assert not isinstance(task, TaskProblem)
        return task.digest

    base = digest("a")
    assert digest("b", title="Renamed", why="notes") == base
    assert digest("c", prompt="Is it false?") != base
    assert digest("d", must_find=["NO FAULT"]) != base


@pytest.mark.parametrize(
    ("change", "field", "words"),
    [
        ({"shape": "riddle"}, "shape", "use one of claim, bug"),
        ({"title": ""}, "title", "non-empty text"),
        ({"prompt": None}, "prompt", "non-empty text"),
        ({"id": "Claim X"}, "id", "lower-case"),
        ({"id": "claim-y"}, "id", "must match the folder's name `claim-x`"),
        ({"colour": "red"}, "colour", "unknown field"),
        ({"score_in": "last_line"}, "score_in", "whole, first_line"),
        ({"min_answer_chars": -1}, "min_answer_chars", "whole number"),
        ({"min_answer_chars": True}, "min_answer_chars", "whole number"),
        ({"draft": "yes"}, "draft", "true or false"),
        ({"must_find": "NO FAULT"}, "must_find", "list of clauses"),
        ({"must_find": [" "]}, "must_find[0]", "must hold words"),
        ({"must_find": ["ok", {"any_of": []}]}, "must_find[1]", "one or more phrases"),
        ({"must_find": [{"regex": "(", "label": "x"}]}, "must_find[0]", "does not compile"),
        ({"must_not_claim": [{"regex": "x"}]}, "must_not_claim[0]", '{"regex": ..., "label": ...}'),
        ({"must_find": [], "must_not_claim": []}, "must_find", "at least one"),
        ({"attach": ["../../etc/passwd"]}, "attach[0]", "relative path"),
        ({"attach": ["/etc/passwd"]}, "attach[0]", "relative path"),
        ({"attach": ["src/missing.py"]}, "attach[0]", "not a file"),
        ({"attach": "src/x.py"}, "attach", "must be a list"),
    ],
)
def test_a_bad_field_is_named_with_what_to_fix(
    tmp_path: Path, change: dict[str, Any], field: str, words: str
) -> None:
    found = problem(tmp_path, {**GOOD, **change})
    assert found.field == field and words in found.message, found
    assert found.path.endswith("task.json") or "fixtures" in found.path


def test_a_fixture_that_is_not_text_is_named_by_its_path(tmp_path: Path) -> None:
    where = folder(tmp_path, {**GOOD, "attach": ["blob.bin"]})
    (where / "fixtures" / "blob.bin").write_bytes(b"\xff\xfe\x00")
    found = read_task(where, "data")
    assert isinstance(found, TaskProblem)
    assert (found.field, found.message) == ("attach[0]", "is not UTF-8 text")
    assert found.path == str(where / "fixtures" / "blob.bin")


def test_a_fixture_that_leaves_the_folder_through_a_link_is_refused(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("not for models")
    where = folder(tmp_path, {**GOOD, "attach": ["link.txt"]})
    (where / "fixtures" / "link.txt").symlink_to(secret)
    assert problem_of(where).field == "attach[0]"


def problem_of(where: Path) -> TaskProblem:
    found = read_task(where, "data")
    assert isinstance(found, TaskProblem)
    return found


@pytest.mark.parametrize(
    ("text", "words"),
    [("{not json", "is not valid JSON: "), ("[1, 2]", "must hold a JSON object"), (None, "has no task.json")],
)
def test_a_task_file_that_cannot_be_read_is_reported(tmp_path: Path, text: str | None, words: str) -> None:
    where = folder(tmp_path, text or "{}")
    if text is None:
        (where / "task.json").unlink()
    found = problem_of(where)
    assert found.field is None and words in found.message
    assert found.path == str(where / "task.json")


def test_the_data_folder_wins_on_the_same_id_and_bad_folders_are_listed_beside_the_rest(
    tmp_path: Path,
) -> None:
    starter, data = tmp_path / "starter", tmp_path / "data"
    folder(starter, {**GOOD, "title": "shipped"})
    folder(starter, {**GOOD, "id": "claim-y", "title": "only shipped"}, name="claim-y")
    folder(data, {**GOOD, "title": "mine"})
    folder(data, {**GOOD, "id": "broken", "shape": "riddle"}, name="broken")
    (data / "notes.txt").write_text("not a task folder")
    catalogue = load_catalogue(data, starter)
    assert [(t.id, t.title, t.origin) for t in catalogue.tasks.values()] == [
        ("claim-x", "mine", "data"),
        ("claim-y", "only shipped", "starter"),
    ]
    (broken,) = catalogue.problems
    assert (broken.field, broken.path) == ("shape", str(data / "broken" / "task.json"))
    assert str(broken).startswith(f"{data / 'broken' / 'task.json'} (shape): `riddle` is not a shape")


def test_a_missing_data_folder_leaves_the_starter_pack(tmp_path: Path) -> None:
    starter = tmp_path / "starter"
    folder(starter, GOOD)
    catalogue = load_catalogue(tmp_path / "nowhere", starter)
    assert list(catalogue.tasks) == ["claim-x"] and catalogue.problems == ()


def test_drafts_are_left_out_of_what_runs_unless_named(tmp_path: Path) -> None:
    folder(tmp_path, {**GOOD, "draft": True})
    folder(tmp_path, {**GOOD, "id": "claim-y"}, name="claim-y")
    catalogue = load_catalogue(tmp_path, tmp_path / "no-starter")
    assert [t.id for t in catalogue.runnable()] == ["claim-y"]
