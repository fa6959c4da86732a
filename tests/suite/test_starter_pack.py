"""The starter pack in the package: it loads whole, it is balanced, and its pairs differ by one line."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

from panelgate.suite.library import STARTER_DIR, load_catalogue
from panelgate.suite.results import ScoredAnswer, tally
from panelgate.suite.scoring import Reply, score
from panelgate.suite.task import Task

from .tasks import PAD

NUMBERED = re.compile(r"^\s*(\d+) \| ", re.MULTILINE)
AT = datetime(2026, 1, 1, tzinfo=UTC)


def starter() -> dict[str, Task]:
    catalogue = load_catalogue(Path("/nonexistent/panelgate-data"), STARTER_DIR)
    assert catalogue.problems == (), [str(p) for p in catalogue.problems]
    assert all(task.origin == "starter" and not task.draft for task in catalogue.tasks.values())
    return catalogue.tasks


def test_every_starter_task_loads() -> None:
    assert len(starter()) >= 24


def test_claims_are_at_least_twelve_half_true_half_false_each_with_its_file() -> None:
    claims = [task for task in starter().values() if task.shape == "claim"]
    verdicts = [task.must_find[0].label for task in claims]
    assert len(claims) >= 12
    assert verdicts.count("VERDICT: TRUE") == verdicts.count("VERDICT: FALSE") == len(claims) // 2
    for task in claims:
        (attached,) = task.attachments
        assert attached.path.startswith("src/panelgate/") and f"`{attached.path}`" in task.prompt
        assert task.score_in == "first_line" and "`VERDICT: TRUE` or `VERDICT: FALSE`" in task.prompt
        named = re.findall(r"`([\w.]+)", task.prompt.split("Claim:", 1)[1])
        assert any(f"def {name.split('.')[-1]}(" in attached.text for name in named), task.id


def test_each_bug_differs_from_its_control_on_exactly_the_line_it_must_find() -> None:
    tasks = starter()
    bugs = [task for task in tasks.values() if task.shape == "bug"]
    assert len(bugs) >= 6
    for bug in bugs:
        control = tasks[bug.id.replace("bug-", "control-", 1)]
        assert control.shape == "control"
        bug_lines, control_lines = bug.prompt.splitlines(), control.prompt.splitlines()
        assert len(bug_lines) == len(control_lines)
        changed = [b for b, c in zip(bug_lines, control_lines, strict=True) if b != c]
        assert len(changed) == 1, bug.id
        (line,) = NUMBERED.findall(changed[0])
        assert bug.must_find[0].label == f"FAULT: line {line}", bug.id
        assert [c.label for c in bug.must_not_claim] == ["NO FAULT"]
        assert [c.label for c in control.must_find] == ["NO FAULT"]


def test_the_right_answer_scores_right_on_every_starter_task() -> None:
    for task in starter().values():
        found = score(task, Reply("ok", task.must_find[0].label + "\nBecause." + PAD))
        assert found.right, (task.id, found)


def test_always_false_scores_half_on_the_starter_claims() -> None:
    claims = [task for task in starter().values() if task.shape == "claim"]
    answers = [
        ScoredAnswer(1, "m1", t.id, t.shape, score(t, Reply("ok", "VERDICT: FALSE" + PAD)), AT)
        for t in claims
    ]
    (model,) = tally(answers)
    assert model.shapes[0].recall == 0.5 and model.confidently_wrong == 0
