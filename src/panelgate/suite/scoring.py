"""Scoring one answer to one task: what it found, what it missed, what it invented, or why it does not count.

Pure rules, no I/O. Three decisions shape every number the suite reports:

- **A non-answer scores nothing either way.** A call that failed, timed out
  or was never sent, an empty reply, a refusal, or a reply shorter than the
  task's `min_answer_chars` neither finds nor invents: counting it as a miss
  would punish a rate limit, counting it as clean would reward silence.
- **Recall** is the share of must-find clauses present; **inventions** are
  the must-not-claim clauses the answer asserts (see `clauses` for why a
  negated mention is not a claim).
- **First-line tasks are read on their first line only** (`VERDICT: TRUE`,
  `FAULT: line 12`, `NO FAULT`): a model that hedges with both verdicts in
  its explanation gets the one it committed to.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from panelgate.suite.clauses import asserts, mentions
from panelgate.suite.task import Task

ReplyStatus = Literal["ok", "empty", "error", "refused"]
"""How the call ended: answered, answered with nothing, failed, or never sent (pacing refused it)."""

THINKING = re.compile(r"^\s*<think>.*?</think>", re.DOTALL | re.IGNORECASE)
REFUSAL = re.compile(
    r"^\s*(?:I'?m sorry|I am sorry|sorry,|I can(?:no|['’])t|I am unable|I'?m unable|I won['’]t|I will not)\b",
    re.IGNORECASE,
)
MARKUP = str.maketrans("", "", "*`")


@dataclass(frozen=True)
class Reply:
    """What came back from asking a model one task."""

    status: ReplyStatus
    text: str = ""
    error_kind: str | None = None
    error: str = ""


@dataclass(frozen=True)
class Score:
    counted: bool
    why_not: str = ""
    """Why a non-answer does not count (empty when it counts)."""
    found: tuple[str, ...] = ()
    missed: tuple[str, ...] = ()
    invented: tuple[str, ...] = ()

    @property
    def recall(self) -> float | None:
        """Share of must-find clauses present; None when it does not count or had nothing to find."""
        wanted = len(self.found) + len(self.missed)
        return len(self.found) / wanted if self.counted and wanted else None

    @property
    def right(self) -> bool:
        """Counted, found everything and invented nothing."""
        return self.counted and not self.missed and not self.invented

    def to_json(self) -> dict[str, Any]:
        return {
            "counted": self.counted,
            "why_not": self.why_not,
            "found": list(self.found),
            "missed": list(self.missed),
            "invented": list(self.invented),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Score:
        return cls(
            counted=bool(data.get("counted")),
            why_not=str(data.get("why_not") or ""),
            found=tuple(data.get("found") or ()),
            missed=tuple(data.get("missed") or ()),
            invented=tuple(data.get("invented") or ()),
        )


def score(task: Task, reply: Reply) -> Score:
    why_not = non_answer(task, reply)
    if why_not:
        return Score(counted=False, why_not=why_not)
    text = scored_text(task, reply.text)
    found = tuple(c.label for c in task.must_find if mentions(c, text))
    missed = tuple(c.label for c in task.must_find if not mentions(c, text))
    invented = tuple(c.label for c in task.must_not_claim if asserts(c, text))
    return Score(counted=True, found=found, missed=missed, invented=invented)


def non_answer(task: Task, reply: Reply) -> str:
    """Why the reply is no answer at all (empty when it is one)."""
    if reply.status == "refused":
        return "not sent: " + (reply.error or "the model's rate limit would have refused it")
    if reply.status == "error":
        kind = "timed out" if reply.error_kind == "timeout" else f"failed ({reply.error_kind or 'other'})"
        return f"{kind}: {reply.error}" if reply.error else kind
    text = without_thinking(reply.text).strip()
    if reply.status == "empty" or not text:
        return "empty reply"
    if len(text) < task.min_answer_chars:
        return f"too short: {len(text)} characters, the task asks for at least {task.min_answer_chars}"
    if REFUSAL.match(text) and not _touches_task(task, text):
        return "declined to answer"
    return ""


def scored_text(task: Task, answer: str) -> str:
    """The part of an answer that is scored: the whole answer, or its first line without markup."""
    text = without_thinking(answer)
    if task.score_in == "whole":
        return text
    first = next((line for line in text.splitlines() if line.strip()), "")
    return first.translate(MARKUP).strip().lstrip("#> ").strip()


def without_thinking(answer: str) -> str:
    """The answer without a leading `<think>` block (some models reason inside their content)."""
    return THINKING.sub("", answer, count=1)


def _touches_task(task: Task, text: str) -> bool:
    """Whether a reply that opens like a refusal still speaks to the task (any clause in it)."""
    return any(mentions(clause, text) for clause in (*task.must_find, *task.must_not_claim))
