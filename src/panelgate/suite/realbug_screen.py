"""Which fix records make a fair real-bug task, and why each other one does not.

A record is one fixed bug in a public Python project, in the shape
SWE-rebench and similar datasets publish: the repository, the commit the fix
was made on (`base_commit`), and the fix itself as a unified diff (`patch`).
A fair task shows a model one window of one file and asks for one line, so
only a fix that changes one non-test Python file, in one contiguous run of
at most `MAX_REMOVED` removed and `MAX_ADDED` added lines, that changes code
(not only comments or blank lines), is kept. Every other record is rejected
with a `Rejection`: a short kind a script can count and words a person can
act on.

Pure: records in, screened fixes out; reading the file the fix applies to is
the importer's job (`realbug_import.py`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from panelgate.suite.realbug_diff import DiffProblem, FileDiff, Hunk, parse_diff

MAX_REMOVED = 5
MAX_ADDED = 5
REPO = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9_.-]+$")
COMMIT = re.compile(r"^[0-9a-fA-F]{7,64}$")

RejectKind = Literal[
    "malformed", "multi-file", "test-file", "not-python", "hunks", "too-large", "comments-only"
]


@dataclass(frozen=True)
class Rejection:
    kind: RejectKind | Literal["no-source", "does-not-apply", "taken"]
    why: str


@dataclass(frozen=True)
class FixRecord:
    """One fix as the importer reads it: where it was made and what it changed."""

    key: str
    """The record's own id (`instance_id`), else `<repo>@<commit>`: what a rejection names."""
    repo: str
    base_commit: str
    patch: str
    license: str = ""
    pre_fix_text: str | None = None
    """The changed file's whole text at `base_commit`, when the record carries it (panelgate's own
    field: published datasets leave it out and the importer reads a checkout instead)."""


@dataclass(frozen=True)
class ScreenedFix:
    record: FixRecord
    path: str
    hunk: Hunk


def fix_record(raw: object) -> FixRecord | Rejection:
    """A record read from one JSON object, or why it cannot be read."""
    if not isinstance(raw, Mapping):
        return Rejection("malformed", "the record is not a JSON object")
    fields = {name: raw.get(name) for name in ("repo", "base_commit", "patch")}
    missing = [name for name, value in fields.items() if not isinstance(value, str) or not value.strip()]
    if missing:
        return Rejection("malformed", f"`{'`, `'.join(missing)}` missing or not text")
    repo, commit = str(fields["repo"]).strip(), str(fields["base_commit"]).strip()
    if not REPO.match(repo):
        return Rejection("malformed", f"`repo` {repo[:60]!r} is not `owner/name`")
    if not COMMIT.match(commit):
        return Rejection("malformed", f"`base_commit` {commit[:60]!r} is not a commit hash")
    text = raw.get("pre_fix_text")
    return FixRecord(
        key=_text(raw, "instance_id") or f"{repo}@{commit[:12]}",
        repo=repo,
        base_commit=commit,
        patch=str(fields["patch"]),
        license=_text(raw, "license") or _text(raw, "license_name"),
        pre_fix_text=text if isinstance(text, str) else None,
    )


def _text(raw: Mapping[str, Any], name: str) -> str:
    value = raw.get(name)
    return value.strip() if isinstance(value, str) else ""


def screen(record: FixRecord) -> ScreenedFix | Rejection:
    """The fix's one file and hunk when it makes a fair task, else why not."""
    try:
        files = parse_diff(record.patch)
    except DiffProblem as problem:
        return Rejection("malformed", f"`patch`: {problem}")
    if len(files) != 1:
        names = ", ".join(f"`{f.path}`" for f in files[:4])
        return Rejection("multi-file", f"the fix changes {len(files)} files ({names}); one file only")
    (changed,) = files
    return _screen_file(record, changed)


def _screen_file(record: FixRecord, changed: FileDiff) -> ScreenedFix | Rejection:
    path = changed.path
    if changed.old_path is None or changed.new_path is None or changed.old_path != changed.new_path:
        return Rejection(
            "multi-file", f"the fix adds, deletes or renames `{path}`; one file changed in place only"
        )
    if is_test_path(path):
        return Rejection("test-file", f"the fix changes a test file (`{path}`), not the code under test")
    if not path.endswith(".py"):
        return Rejection("not-python", f"the fix changes `{path}`, not a Python module")
    if len(changed.hunks) != 1:
        return Rejection("hunks", f"the fix has {len(changed.hunks)} hunks; one contiguous hunk only")
    (hunk,) = changed.hunks
    if _change_runs(hunk) != 1:
        return Rejection("hunks", "the hunk changes lines in more than one place; one contiguous change only")
    removed, added = hunk.removed, hunk.added
    if len(removed) > MAX_REMOVED or len(added) > MAX_ADDED:
        return Rejection(
            "too-large",
            f"the fix removes {len(removed)} and adds {len(added)} lines; "
            f"at most {MAX_REMOVED} removed and {MAX_ADDED} added",
        )
    if _code(removed) == _code(added):
        return Rejection("comments-only", "the fix changes only comments or blank lines")
    return ScreenedFix(record, path, hunk)


def is_test_path(path: str) -> bool:
    """A test module or anything in a test folder (`tests/`, `test/`, `testing/`)."""
    parts = path.split("/")
    name = parts[-1]
    in_tests = any(part in ("tests", "test", "testing") for part in parts[:-1])
    return in_tests or name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py"


def _change_runs(hunk: Hunk) -> int:
    """How many separate runs of removed and added lines the hunk holds."""
    runs, inside = 0, False
    for line in hunk.lines:
        changing = line[0] in "-+"
        runs += changing and not inside
        inside = changing
    return runs


def _code(lines: list[str]) -> list[str]:
    """The lines' code: comments and blank lines dropped, spacing folded (a `#` in a string is rare
    enough in a five-line fix that it only errs towards keeping the record)."""
    kept = (" ".join(line.split("#", 1)[0].split()) for line in lines)
    return [line for line in kept if line]
