"""A screened real fix as a pair of tasks: the code before the fix (shape `bug`) and after it (`control`).

Both show the same window of the file, at most `WINDOW_LINES` lines around
the change, numbered as in the file, so the answer names the line a person
would open. The bug's right answer is `FAULT: line N` on a line the fix
removed or changed (for a fix that only adds lines, the code line just above
or below the gap); the control's is `NO FAULT`. Both send the same words
around the code, so only the code tells them apart.

Each task names where it came from (`source`: the project, its commit, the
file and the record) and the project's license as the record gave it.

Pure: the fix and the file's text before it in, `task.json` objects out.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from panelgate.suite.realbug_screen import Rejection, ScreenedFix
from panelgate.suite.seed import ANY_FAULT, NO_FAULT, fault_clause

WINDOW_LINES = 400
PREFIX = "realbug"


@dataclass(frozen=True)
class RealBugPair:
    bug: dict[str, Any]
    control: dict[str, Any]
    fault_lines: tuple[int, ...]

    def summary(self, key: str, path: str) -> dict[str, Any]:
        """The pair as the admin API reports it."""
        return {
            "record": key,
            "bug": self.bug["id"],
            "control": self.control["id"],
            "path": path,
            "fault_lines": list(self.fault_lines),
            "draft": self.bug["draft"],
        }


def real_bug_pair(fix: ScreenedFix, pre_fix_text: str, *, draft: bool = True) -> RealBugPair | Rejection:
    """The bug task and its control, or why the fix does not apply to the text given."""
    before = pre_fix_text.splitlines()
    start = fix.hunk.old_start - 1 if fix.hunk.old_side() else fix.hunk.old_start
    expected = fix.hunk.old_side()
    found = before[start : start + len(expected)]
    if [line.rstrip() for line in found] != [line.rstrip() for line in expected]:
        return Rejection(
            "does-not-apply",
            f"the hunk does not match `{fix.path}` at line {start + 1}: the text is not the file "
            f"at commit {fix.record.base_commit[:12]}",
        )
    after = before[:start] + fix.hunk.new_side() + before[start + len(expected) :]
    faults = _fault_lines(fix, start, before)
    first, last = _window(len(before), faults)
    shift = len(after) - len(before)
    record = fix.record
    stem = f"{PREFIX}-{_slug(record.repo)}-{_digest(fix)}"
    where = f"`{fix.path}` of {record.repo}"
    common = {
        "score_in": "first_line",
        "draft": draft,
        "source": (
            f"a real fix in https://github.com/{record.repo} (base commit {record.base_commit}), "
            f"{fix.path}; record {record.key}"
        ),
        "license": record.license or "not stated by the record: check the project's license",
    }
    bug = {
        "id": f"{stem}-bug",
        "title": f"{where} before a real fix",
        "why": f"The project's authors fixed line {_in_words(faults)} in a later commit.",
        "shape": "bug",
        "prompt": _prompt(record.repo, fix.path, before[first - 1 : last], first),
        "must_find": [fault_clause(faults)],
        "must_not_claim": [NO_FAULT],
        **common,
    }
    control = {
        "id": f"{stem}-control",
        "title": f"{where} after the fix (control of {stem}-bug)",
        "why": f"The same code as fixed, paired with {stem}-bug: answering a fault here is a false alarm.",
        "shape": "control",
        "prompt": _prompt(record.repo, fix.path, after[first - 1 : last + shift], first),
        "must_find": [NO_FAULT],
        "must_not_claim": [ANY_FAULT],
        **common,
    }
    return RealBugPair(bug, control, faults)


def _fault_lines(fix: ScreenedFix, start: int, before: Sequence[str]) -> tuple[int, ...]:
    """File line numbers (from 1) an answer may name: the removed lines, else the gap's neighbours."""
    number, removed = start + 1, []
    for line in fix.hunk.lines:
        if line.startswith("-"):
            removed.append(number)
        if not line.startswith("+"):
            number += 1
    if removed:
        return tuple(removed)
    gap = start + 1 + sum(1 for line in fix.hunk.lines[: _first_change(fix)] if line.startswith(" "))
    above = next((n for n in range(gap - 1, 0, -1) if before[n - 1].strip()), None)
    below = next((n for n in range(gap, len(before) + 1) if before[n - 1].strip()), None)
    return tuple(n for n in (above, below) if n is not None)


def _first_change(fix: ScreenedFix) -> int:
    return next(i for i, line in enumerate(fix.hunk.lines) if line[0] in "-+")


def _window(total: int, faults: tuple[int, ...]) -> tuple[int, int]:
    """First and last line shown: the whole file when it is short, else `WINDOW_LINES` around the fix."""
    if total <= WINDOW_LINES:
        return 1, total
    first = max(1, min(faults) - WINDOW_LINES // 2)
    last = min(total, first + WINDOW_LINES - 1)
    return max(1, last - WINDOW_LINES + 1), last


def _prompt(repo: str, path: str, lines: Sequence[str], first: int) -> str:
    last = first + len(lines) - 1
    width = max(3, len(str(last)))
    shown = "".join(f"{n:>{width}} | {line}\n" for n, line in enumerate(lines, start=first))
    return (
        f"This is `{path}` (lines {first}–{last}) from the open-source project {repo}. It may hold a bug "
        "its authors later fixed, or it may be correct as it stands. Lines are numbered as in the file.\n\n"
        f"```python\n{shown}```\n\n"
        "Answer on the first line with `FAULT: line N` (N: the number of the line that holds the bug) "
        "or `NO FAULT` when the code is correct, then give your reason in a few sentences."
    )


def _in_words(lines: tuple[int, ...]) -> str:
    return " or ".join(str(n) for n in lines)


def _slug(repo: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", repo.split("/")[-1].lower()).strip("-")[:24] or "project"


def _digest(fix: ScreenedFix) -> str:
    key = f"{fix.record.repo}\0{fix.record.base_commit}\0{fix.path}\0{fix.record.patch}"
    return hashlib.sha256(key.encode()).hexdigest()[:10]
