"""Scoring one answer: recall, inventions under negation, first-line verdicts, non-answers."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from panelgate.suite.results import ScoredAnswer, tally
from panelgate.suite.scoring import Reply, Score, score

from .tasks import PAD, bug, claim, control, review

RACE = review("race condition", must_not_claim=("deadlock",))


def answer(text: str) -> Reply:
    return Reply("ok", text)


# ---- recall and inventions ---------------------------------------------------------


def test_recall_is_the_share_of_must_find_clauses_present() -> None:
    task = review("race condition", "missing lock", "stale cache")
    found = score(task, answer("There is a race condition in `put`, and the cache can go stale." + PAD))
    assert found.found == ("race condition",)
    assert found.missed == ("missing lock", "stale cache")
    assert found.recall == pytest.approx(1 / 3)


def test_an_asserted_must_not_claim_clause_is_an_invention() -> None:
    found = score(RACE, answer("The two locks are taken in opposite orders: a deadlock." + PAD))
    assert found.invented == ("deadlock",)


def test_a_negated_mention_is_not_an_invention() -> None:
    for text in (
        "There is no deadlock here, only a race condition.",
        "I could not find a deadlock; the locks are always taken in one order.",
        "The code doesn't deadlock because there is one lock.",
        "Nothing suggests a deadlock in this function.",
    ):
        assert score(RACE, answer(text + PAD)).invented == (), text


def test_an_assertion_after_a_negated_sentence_is_an_invention() -> None:
    text = "There is no race condition in `put`. The second method takes the locks backwards: a deadlock."
    assert score(RACE, answer(text + PAD)).invented == ("deadlock",)


def test_the_part_after_but_is_not_under_the_negation_before_it() -> None:
    text = "`put` does not look wrong, but `get` can deadlock when called twice."
    assert score(RACE, answer(text + PAD)).invented == ("deadlock",)


def test_a_negation_far_back_in_a_long_sentence_does_not_reach_the_claim() -> None:
    text = (
        "Nothing about the first helper matters to the rest of this review at all "
        "and then the lock will deadlock"
    )
    assert score(RACE, answer(text + PAD)).invented == ("deadlock",)


def test_phrases_match_in_any_case_and_across_line_breaks() -> None:
    task = review("race condition")
    assert score(task, answer("A RACE\ncondition hides here." + PAD)).found == ("race condition",)


# ---- first-line scoring ---------------------------------------------------------------


def test_first_line_scoring_ignores_what_follows() -> None:
    task = claim("c", true=False)
    hedged = score(
        task, answer("VERDICT: FALSE\nOne could argue VERDICT: TRUE, but the code says otherwise." + PAD)
    )
    assert (hedged.found, hedged.invented) == (("VERDICT: FALSE",), ())
    late = score(task, answer("I think the claim holds up.\nVERDICT: FALSE" + PAD))
    assert (late.found, late.missed) == ((), ("VERDICT: FALSE",))


def test_the_first_line_is_read_without_markdown_or_leading_blank_lines() -> None:
    task = claim("c", true=True)
    assert score(task, answer("\n\n**VERDICT:** `TRUE`\nBecause." + PAD)).found == ("VERDICT: TRUE",)


def test_a_leading_thinking_block_is_not_the_first_line() -> None:
    task = claim("c", true=True)
    text = "<think>Maybe VERDICT: FALSE?\nNo.</think>\nVERDICT: TRUE\nBecause." + PAD
    assert score(task, answer(text)).right


def test_fault_on_line_12_does_not_match_line_1() -> None:
    assert score(bug("b", 1), answer("FAULT: line 12" + PAD)).missed == ("FAULT: line 1",)
    assert score(bug("b", 12), answer("FAULT: line 1" + PAD)).missed == ("FAULT: line 12",)
    assert score(bug("b", 12), answer("FAULT: line 12." + PAD)).found == ("FAULT: line 12",)


def test_no_fault_on_a_bug_is_an_invention() -> None:
    found = score(bug("b", 7), answer("NO FAULT" + PAD))
    assert (found.counted, found.invented, found.missed) == (True, ("NO FAULT",), ("FAULT: line 7",))


def test_a_fault_named_on_a_control_is_an_invention_and_no_fault_is_right() -> None:
    assert score(control("c"), answer("FAULT: line 3" + PAD)).invented == ("FAULT: line N",)
    assert score(control("c"), answer("NO FAULT" + PAD)).right


def test_a_deleted_line_bug_accepts_either_neighbour() -> None:
    task = bug("b", 11, 12)
    for line in (11, 12):
        assert score(task, answer(f"FAULT: line {line}" + PAD)).right
    assert not score(task, answer("FAULT: line 13" + PAD)).right


# ---- non-answers ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "why"),
    [
        (Reply("error", error_kind="timeout", error="`up` did not finish within 300.0s"), "timed out"),
        (Reply("error", error_kind="capacity", error="HTTP 429"), "failed (capacity)"),
        (Reply("refused", error_kind="capacity"), "not sent"),
        (Reply("empty"), "empty reply"),
        (Reply("ok", "   "), "empty reply"),
        (Reply("ok", "NO FAULT"), "too short"),
        (Reply("ok", "I'm sorry, but I can't help with reviewing this code today." + PAD), "declined"),
    ],
)
def test_a_non_answer_scores_nothing_either_way(reply: Reply, why: str) -> None:
    for task in (bug("b", 4), control("c"), RACE):
        found = score(task, reply)
        assert not found.counted and why in found.why_not
        assert (found.found, found.missed, found.invented, found.recall) == ((), (), (), None)


def test_an_answer_that_opens_politely_but_answers_still_counts() -> None:
    found = score(bug("b", 4), answer("Sorry, this took a while: FAULT: line 4 is wrong." + PAD))
    assert found.counted and found.right


def test_a_score_survives_its_json_form() -> None:
    found = score(RACE, answer("a deadlock and a race condition" + PAD))
    assert Score.from_json(found.to_json()) == found


# ---- tallies ----------------------------------------------------------------------------


def scored(task_shape: str, task_id: str, found: Score, model: int = 1) -> ScoredAnswer:
    return ScoredAnswer(model, f"m{model}", task_id, task_shape, found, datetime(2026, 1, 1, tzinfo=UTC))


def test_a_model_that_always_says_false_scores_half_on_balanced_claims() -> None:
    claims = [claim(f"true-{n}", true=True) for n in range(6)] + [
        claim(f"false-{n}", true=False) for n in range(6)
    ]
    answers = [scored("claim", c.id, score(c, answer("VERDICT: FALSE" + PAD))) for c in claims]
    (model,) = tally(answers)
    (claims_tally,) = model.shapes
    assert claims_tally.recall == 0.5 and claims_tally.right == 6
    assert model.confidently_wrong == 0 and model.finding_recall is None, "guessing finds nothing"


def test_always_true_believes_every_false_claim() -> None:
    claims = [claim("t", true=True), claim("f", true=False)]
    (model,) = tally(scored("claim", c.id, score(c, answer("VERDICT: TRUE" + PAD))) for c in claims)
    assert (model.false_claims_believed, model.confidently_wrong) == (1, 1)


def test_shapes_stay_apart_so_judgements_never_inflate_finding_recall() -> None:
    always_no_fault = answer("NO FAULT" + PAD)
    answers = [
        scored("bug", "b", score(bug("b", 3), always_no_fault)),
        scored("control", "c", score(control("c"), always_no_fault)),
        scored("control", "c2", score(control("c2"), answer("FAULT: line 2" + PAD))),
        scored("bug", "b2", score(bug("b2", 5), Reply("error", error_kind="capacity"))),
    ]
    (model,) = tally(answers)
    assert model.findings == (0, 1), "the control's NO FAULT is not a finding; the rate limit is not a miss"
    assert (model.inventions, model.false_alarms, model.confidently_wrong) == (1, 1, 1)
    shapes = {t.shape: t for t in model.shapes}
    assert (shapes["bug"].asked, shapes["bug"].answered, shapes["bug"].not_answered) == (2, 1, 1)
    assert shapes["control"].right == 1


def test_tallies_are_per_model_under_its_newest_alias() -> None:
    task = bug("b", 3)
    first = ScoredAnswer(
        7, "old", "b", "bug", score(task, answer("FAULT: line 3" + PAD)), datetime(2026, 1, 1, tzinfo=UTC)
    )
    later = ScoredAnswer(
        7, "new", "b2", "bug", score(task, answer("FAULT: line 3" + PAD)), datetime(2026, 2, 1, tzinfo=UTC)
    )
    other = scored("bug", "b", score(task, answer("NO FAULT" + PAD)), model=2)
    tallies = tally([later, first, other])
    assert [(t.alias, t.findings) for t in tallies] == [("m2", (0, 1)), ("new", (2, 2))]
