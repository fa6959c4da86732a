"""Tasks for the scoring tests, made the way `task.json` files say them."""

from __future__ import annotations

from panelgate.suite.task import AnyOf, Pattern, Phrase, Task

PAD = " The reasoning follows in a few sentences, as the task asks of every answer."

TRUE_VERDICT = Pattern(r"VERDICT:\s*TRUE\b", "VERDICT: TRUE")
FALSE_VERDICT = Pattern(r"VERDICT:\s*FALSE\b", "VERDICT: FALSE")
NO_FAULT = Pattern(r"\bNO\s+FAULT\b", "NO FAULT")
ANY_FAULT = Pattern(r"\bFAULT:\s*line\s+\d+", "FAULT: line N")


def claim(task_id: str, *, true: bool) -> Task:
    if true:
        return Task(task_id, "a claim", "claim", "Is it true?", (TRUE_VERDICT,), score_in="first_line")
    return Task(
        task_id, "a claim", "claim", "Is it true?", (FALSE_VERDICT,), (TRUE_VERDICT,), score_in="first_line"
    )


def bug(task_id: str, *lines: int) -> Task:
    """A planted bug on `lines` (two neighbours when a line was deleted)."""
    wanted = (
        AnyOf(tuple(f"FAULT: line {n}" for n in lines))
        if len(lines) > 1
        else Phrase(f"FAULT: line {lines[0]}")
    )
    return Task(task_id, "a bug", "bug", "Where?", (wanted,), (NO_FAULT,), score_in="first_line")


def control(task_id: str) -> Task:
    return Task(task_id, "a control", "control", "Where?", (NO_FAULT,), (ANY_FAULT,), score_in="first_line")


def review(*must_find: str, must_not_claim: tuple[str, ...] = ()) -> Task:
    return Task(
        "review-1",
        "a review",
        "review",
        "Review this.",
        tuple(Phrase(p) for p in must_find),
        tuple(Phrase(p) for p in must_not_claim),
    )
