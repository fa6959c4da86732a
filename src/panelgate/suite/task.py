"""A review-suite task as the runner and the scorer see it: what to ask, what to attach, how to score.

A task is written as a folder (`task.json` and a `fixtures/` folder) and read
by `task_file`, which checks every field; what comes out is this frozen
record, so scoring stays a pure function of a task and an answer and nothing
downstream ever opens a file.

The answer a task wants is said by its clauses, not by a separate field:
`must_find` clauses are what a good answer contains, `must_not_claim` clauses
what it must not assert. A claim whose truth is FALSE must find
`VERDICT: FALSE` and must not claim `VERDICT: TRUE`; a planted bug must find
`FAULT: line N` and must not claim `NO FAULT`; its control (the untouched
function) must find `NO FAULT` and must not claim a faulty line.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

CLAIM = "claim"
CONTROL = "control"
SHAPES = ("claim", "bug", "control", "seeded", "enumeration", "review")
"""What kind of work a task is. `claim`: is this statement about the code true? `bug`/`seeded`: name the
faulty line (a real fault, or one planted by seeding); `control`: the untouched code, the right answer is
`NO FAULT`; `enumeration`: list every place something happens; `review`: find the problems."""
JUDGEMENT_SHAPES = frozenset({CLAIM, CONTROL})
"""Shapes whose answer is a yes/no judgement: kept out of finding recall, so always answering TRUE, FALSE or
NO FAULT never looks like finding things."""

ScoreIn = Literal["whole", "first_line"]
SCORE_IN: tuple[ScoreIn, ...] = ("whole", "first_line")
DEFAULT_MIN_ANSWER_CHARS = 40


@dataclass(frozen=True)
class Phrase:
    """Words that must appear as written (any case; any run of spaces matches any other)."""

    text: str

    @property
    def label(self) -> str:
        return self.text


@dataclass(frozen=True)
class AnyOf:
    """Any one of several phrases (a deleted line's fault may be named on either neighbour)."""

    phrases: tuple[str, ...]

    @property
    def label(self) -> str:
        return " | ".join(self.phrases)


@dataclass(frozen=True)
class Pattern:
    """A regular expression (any case), shown to people by its label."""

    regex: str
    label: str


Clause = Phrase | AnyOf | Pattern


@dataclass(frozen=True)
class Attachment:
    """A file sent with the prompt, under the path the model is shown."""

    path: str
    text: str


@dataclass(frozen=True)
class Task:
    id: str
    title: str
    shape: str
    prompt: str
    must_find: tuple[Clause, ...]
    must_not_claim: tuple[Clause, ...] = ()
    attachments: tuple[Attachment, ...] = ()
    why: str = ""
    score_in: ScoreIn = "whole"
    min_answer_chars: int = DEFAULT_MIN_ANSWER_CHARS
    draft: bool = False
    source: str = ""
    license: str = ""
    origin: str = ""
    """Where it was read from: `starter` (shipped in the package) or `data` (the data folder)."""
    digest: str = ""
    """A hash of everything that decides the question and its score: an answer saved under another digest
    answered an earlier version of the task."""
