"""What a pass asks next (gaps first, in turn across models, then the oldest); the quick sample."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

from panelgate.suite.choice import Standing, is_gap, pass_pairs, quick_sample

from .tasks import bug, claim, control

T0 = datetime(2026, 3, 1, tzinfo=UTC)
TASKS = [replace(claim(f"c{n}", true=n % 2 == 0), digest=f"d{n}") for n in range(3)]


def answered(days_ago: int, task_index: int, **fields: str) -> Standing:
    standing = Standing(asked_at=T0 - timedelta(days=days_ago), digest=f"d{task_index}", status="ok")
    return replace(standing, **fields)


def test_missing_changed_and_rate_limited_answers_are_gaps() -> None:
    task = TASKS[0]
    assert is_gap(task, None)
    assert is_gap(task, answered(1, 0, digest="an older version"))
    assert is_gap(task, answered(1, 0, status="error", error_kind="capacity"))
    assert is_gap(task, answered(1, 0, status="refused", error_kind="capacity"))
    assert not is_gap(task, answered(1, 0, status="error", error_kind="timeout")), "a timeout says something"
    assert not is_gap(task, answered(1, 0))


def test_gaps_come_first_in_turn_across_models_then_the_oldest_answers() -> None:
    newest = {
        ("m1", "c0"): answered(5, 0),
        ("m1", "c1"): answered(9, 1),
        ("m1", "c2"): answered(1, 2),
        ("m2", "c0"): answered(3, 0, status="error", error_kind="capacity"),
        ("m2", "c2"): answered(2, 2),
    }
    models = ["m1", "m2", "m3"]
    assert pass_pairs(models, TASKS, newest, 6) == [
        ("m2", "c0"),
        ("m3", "c0"),
        ("m2", "c1"),
        ("m3", "c1"),
        ("m3", "c2"),
        ("m1", "c1"),
    ]
    assert pass_pairs(models, TASKS, newest, 8)[-3:] == [("m1", "c1"), ("m1", "c0"), ("m2", "c2")]
    assert pass_pairs(models, TASKS, newest, 0) == []


def test_the_quick_sample_takes_a_few_of_every_shape_the_same_each_time() -> None:
    tasks = [claim(f"claim-{n}", true=True) for n in range(6)] + [bug("bug-1", 3), control("control-1")]
    sample = quick_sample(tasks)
    assert sorted(t.shape for t in sample) == ["bug", "claim", "claim", "control"]
    assert quick_sample(list(reversed(tasks))) == sample
