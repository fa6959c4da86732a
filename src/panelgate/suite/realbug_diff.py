"""Reading a fix's unified diff (`git diff` output, as fix datasets publish it) into files and hunks.

Only what screening and task building need is kept: each file's old and new
path, and each hunk's starting lines and its lines with their marks (` `,
`-`, `+`). Anything that is not a diff a person could apply is refused with
`DiffProblem`, whose message says what was wrong, so the record's rejection
can say it too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

HUNK_HEAD = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
NO_NEWLINE = "\\ No newline at end of file"


class DiffProblem(ValueError):
    """The text is not a unified diff this reader takes; the message says why."""


@dataclass(frozen=True)
class Hunk:
    old_start: int
    new_start: int
    lines: tuple[str, ...]
    """Each line with its mark first: ` ` context, `-` removed, `+` added (no line ends)."""

    @property
    def removed(self) -> list[str]:
        return [line[1:] for line in self.lines if line.startswith("-")]

    @property
    def added(self) -> list[str]:
        return [line[1:] for line in self.lines if line.startswith("+")]

    def old_side(self) -> list[str]:
        """The lines the hunk expects in the file before the fix (context and removed)."""
        return [line[1:] for line in self.lines if not line.startswith("+")]

    def new_side(self) -> list[str]:
        """The lines the file holds there after the fix (context and added)."""
        return [line[1:] for line in self.lines if not line.startswith("-")]


@dataclass
class FileDiff:
    old_path: str | None
    new_path: str | None
    hunks: list[Hunk] = field(default_factory=list)

    @property
    def path(self) -> str:
        return self.new_path or self.old_path or ""


def parse_diff(text: str) -> list[FileDiff]:
    """The files a unified diff changes, in order, each with its hunks."""
    files: list[FileDiff] = []
    lines = text.splitlines()
    at = 0
    while at < len(lines):
        line = lines[at]
        if line.startswith("--- ") and at + 1 < len(lines) and lines[at + 1].startswith("+++ "):
            files.append(FileDiff(_path(line[4:]), _path(lines[at + 1][4:])))
            at += 2
        elif line.startswith("@@"):
            if not files:
                raise DiffProblem("a hunk comes before any `---`/`+++` file header")
            hunk, at = _hunk(lines, at)
            files[-1].hunks.append(hunk)
        else:
            at += 1  # `diff --git`, `index`, mode lines: nothing screening needs
    if not files:
        raise DiffProblem("no `---`/`+++` file header: not a unified diff")
    return files


def _path(header: str) -> str | None:
    """`a/src/x.py` → `src/x.py`; `/dev/null` (a file added or deleted) → None."""
    name = header.split("\t")[0].strip()
    if name == "/dev/null":
        return None
    return name[2:] if name[:2] in ("a/", "b/") else name


def _hunk(lines: list[str], at: int) -> tuple[Hunk, int]:
    head = HUNK_HEAD.match(lines[at])
    if head is None:
        raise DiffProblem(f"hunk header `{lines[at][:60]}` is not `@@ -a,b +c,d @@`")
    old_left = int(head[2]) if head[2] is not None else 1
    new_left = int(head[4]) if head[4] is not None else 1
    body: list[str] = []
    at += 1
    while (old_left > 0 or new_left > 0) and at < len(lines):
        line = lines[at] or " "  # some tools drop the space of an empty context line
        if line == NO_NEWLINE:
            at += 1
            continue
        mark = line[0]
        if mark not in " -+":
            raise DiffProblem(f"line {at + 1} of the diff is neither context, removed nor added")
        old_left -= mark != "+"
        new_left -= mark != "-"
        body.append(line)
        at += 1
    if old_left > 0 or new_left > 0:
        raise DiffProblem("a hunk ends before the lines its header counts")
    return Hunk(int(head[1]), int(head[3]), tuple(body)), at
