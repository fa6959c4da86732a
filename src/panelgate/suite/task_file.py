"""Reading one task folder (`task.json` + `fixtures/`) into a `Task`, or saying exactly what is wrong.

Task folders are written by hand, by seeding and by mining, and a person's
data folder may hold a half-edited one; one bad task must never stop the
suite or hide the others. So a folder either becomes a `Task` or a
`TaskProblem` naming the file and the field at fault, and nothing here
raises for bad content.

`task.json` fields (unknown ones are refused, so a typo is not silently
ignored):

    id                the folder's name: lower-case letters, digits, `.`, `_`, `-`
    title, prompt     required text; the prompt is sent as written
    shape             one of `task.SHAPES`
    why               what the task tests and why it is fair (optional)
    attach            files under `fixtures/`, sent after the prompt under these paths
    must_find         clauses a good answer contains
    must_not_claim    clauses a good answer must not assert
    score_in          `whole` (default) or `first_line`
    min_answer_chars  shorter replies are non-answers (default 40)
    draft             true: skipped unless named (default false)
    source, license   where the task and its fixtures come from, and under what terms

A clause is a phrase (`"NO FAULT"`), `{"any_of": ["FAULT: line 11", "FAULT: line 12"]}`
or `{"regex": "VERDICT:\\\\s*TRUE", "label": "VERDICT: TRUE"}`.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath
from typing import Any

from panelgate.suite.task import (
    DEFAULT_MIN_ANSWER_CHARS,
    SCORE_IN,
    SHAPES,
    AnyOf,
    Attachment,
    Clause,
    Pattern,
    Phrase,
    Task,
)

TASK_FILE = "task.json"
FIXTURES = "fixtures"
TASK_ID = re.compile(r"^[a-z0-9][a-z0-9._-]{0,99}$")
MAX_TASK_FILE_BYTES = 1_000_000
MAX_FIXTURE_BYTES = 400_000
"""Per attached file, and for all of a task's files together: a review prompt, not a repository."""
FIELDS = frozenset(
    {
        "id", "title", "why", "shape", "prompt", "attach", "must_find", "must_not_claim", "score_in",
        "min_answer_chars", "draft", "source", "license",
    }
)  # fmt: skip


@dataclass(frozen=True)
class TaskProblem:
    """Why one task folder could not be read: the file, the field at fault (when one is), and what to fix."""

    path: str
    field: str | None
    message: str

    def __str__(self) -> str:
        where = f"{self.path} ({self.field})" if self.field else self.path
        return f"{where}: {self.message}"


class _Refused(Exception):
    def __init__(self, field: str | None, message: str, path: Path | None = None) -> None:
        super().__init__(message)
        self.field = field
        self.message = message
        self.path = path


def read_task(folder: Path, origin: str) -> Task | TaskProblem:
    """The task in `folder`, or what is wrong with it."""
    file = folder / TASK_FILE
    try:
        return _read(folder, file, origin)
    except _Refused as refused:
        return TaskProblem(str(refused.path or file), refused.field, refused.message)


def _read(folder: Path, file: Path, origin: str) -> Task:
    data = _json_object(file)
    unknown = sorted(set(data) - FIELDS)
    if unknown:
        raise _Refused(unknown[0], f"unknown field; a task takes {', '.join(sorted(FIELDS))}")
    task_id = _text(data, "id")
    if not TASK_ID.fullmatch(task_id):
        raise _Refused(
            "id", "use at most 100 lower-case letters, digits, `.`, `_` and `-`, first a letter or digit"
        )
    if task_id != folder.name:
        raise _Refused("id", f"`{task_id}` must match the folder's name `{folder.name}`")
    title = _text(data, "title")
    shape = _text(data, "shape")
    if shape not in SHAPES:
        raise _Refused("shape", f"`{shape}` is not a shape; use one of {', '.join(SHAPES)}")
    prompt = _text(data, "prompt")
    score_in = data.get("score_in", "whole")
    if score_in not in SCORE_IN:
        raise _Refused("score_in", f"use one of {', '.join(SCORE_IN)}")
    must_find = _clauses(data, "must_find")
    must_not_claim = _clauses(data, "must_not_claim")
    if not must_find and not must_not_claim:
        raise _Refused(
            "must_find", "a task needs at least one must_find or must_not_claim clause to score by"
        )
    task = Task(
        id=task_id,
        title=title,
        shape=shape,
        prompt=prompt,
        must_find=must_find,
        must_not_claim=must_not_claim,
        attachments=_attachments(folder, data),
        why=_text(data, "why", required=False),
        score_in=score_in,
        min_answer_chars=_count(data, "min_answer_chars", DEFAULT_MIN_ANSWER_CHARS),
        draft=_flag(data, "draft"),
        source=_text(data, "source", required=False),
        license=_text(data, "license", required=False),
        origin=origin,
    )
    return _with_digest(task)


def _json_object(file: Path) -> dict[str, Any]:
    try:
        raw = file.read_bytes()
    except FileNotFoundError:
        raise _Refused(None, f"the folder has no {TASK_FILE}") from None
    except OSError as error:
        raise _Refused(None, f"cannot be read: {error.strerror or error}") from None
    if len(raw) > MAX_TASK_FILE_BYTES:
        raise _Refused(None, f"is larger than {MAX_TASK_FILE_BYTES:,} bytes")
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise _Refused(None, "is not UTF-8 text") from None
    except json.JSONDecodeError as error:
        raise _Refused(
            None, f"is not valid JSON: {error.msg} at line {error.lineno}, column {error.colno}"
        ) from None
    if not isinstance(data, dict):
        raise _Refused(None, "must hold a JSON object")
    return data


def _text(data: dict[str, Any], name: str, *, required: bool = True) -> str:
    value = data.get(name)
    if value is None and not required:
        return ""
    if not isinstance(value, str) or (required and not value.strip()):
        raise _Refused(name, "must be non-empty text" if required else "must be text")
    return value


def _count(data: dict[str, Any], name: str, default: int) -> int:
    value = data.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise _Refused(name, "must be a whole number, 0 or more")
    return value


def _flag(data: dict[str, Any], name: str) -> bool:
    value = data.get(name, False)
    if not isinstance(value, bool):
        raise _Refused(name, "must be true or false")
    return value


def _clauses(data: dict[str, Any], name: str) -> tuple[Clause, ...]:
    value = data.get(name, [])
    if not isinstance(value, list):
        raise _Refused(name, "must be a list of clauses")
    return tuple(_clause(item, f"{name}[{index}]") for index, item in enumerate(value))


def _clause(item: Any, where: str) -> Clause:
    if isinstance(item, str):
        if not item.strip():
            raise _Refused(where, "a phrase must hold words")
        return Phrase(item)
    if not isinstance(item, dict):
        raise _Refused(where, 'must be a phrase, {"any_of": [...]} or {"regex": ..., "label": ...}')
    if set(item) == {"any_of"}:
        phrases = item["any_of"]
        if (
            not isinstance(phrases, list)
            or not phrases
            or not all(isinstance(p, str) and p.strip() for p in phrases)
        ):
            raise _Refused(where, "`any_of` must be a list of one or more phrases")
        return AnyOf(tuple(phrases))
    if set(item) == {"regex", "label"}:
        regex, label = item["regex"], item["label"]
        if not isinstance(label, str) or not label.strip():
            raise _Refused(where, "`label` must be non-empty text")
        if not isinstance(regex, str) or not regex:
            raise _Refused(where, "`regex` must be a non-empty regular expression")
        try:
            re.compile(regex)
        except re.error as error:
            raise _Refused(where, f"`regex` does not compile: {error}") from None
        return Pattern(regex, label)
    raise _Refused(where, 'must be a phrase, {"any_of": [...]} or {"regex": ..., "label": ...}')


def _attachments(folder: Path, data: dict[str, Any]) -> tuple[Attachment, ...]:
    value = data.get("attach", [])
    if not isinstance(value, list):
        raise _Refused("attach", f"must be a list of paths under {FIXTURES}/")
    if not value:
        return ()
    root = (folder / FIXTURES).resolve()
    attached: list[Attachment] = []
    total = 0
    for index, name in enumerate(value):
        where = f"attach[{index}]"
        if not isinstance(name, str) or not _plain_relative(name):
            raise _Refused(where, f"must be a relative path under {FIXTURES}/ (no `..`, not absolute)")
        file = (root / name).resolve()
        if not file.is_relative_to(root) or not file.is_file():
            raise _Refused(where, f"`{name}` is not a file in {FIXTURES}/", folder / FIXTURES / name)
        text = _fixture_text(file, where)
        total += len(text.encode())
        if total > MAX_FIXTURE_BYTES:
            raise _Refused(where, f"the attached files pass {MAX_FIXTURE_BYTES:,} bytes together")
        attached.append(Attachment(name, text))
    return tuple(attached)


def _plain_relative(name: str) -> bool:
    path = PurePosixPath(name)
    return bool(name.strip()) and not path.is_absolute() and ".." not in path.parts and "\\" not in name


def _fixture_text(file: Path, where: str) -> str:
    try:
        raw = file.read_bytes()
    except OSError as error:
        raise _Refused(where, f"cannot be read: {error.strerror or error}", file) from None
    if len(raw) > MAX_FIXTURE_BYTES:
        raise _Refused(where, f"is larger than {MAX_FIXTURE_BYTES:,} bytes", file)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise _Refused(where, "is not UTF-8 text", file) from None


def _with_digest(task: Task) -> Task:
    """The task with its `digest`: the question and how it is scored, not its title or notes."""
    decisive = {
        "prompt": task.prompt,
        "attach": [[a.path, a.text] for a in task.attachments],
        "must_find": [_clause_json(c) for c in task.must_find],
        "must_not_claim": [_clause_json(c) for c in task.must_not_claim],
        "score_in": task.score_in,
        "min_answer_chars": task.min_answer_chars,
    }
    encoded = json.dumps(decisive, sort_keys=True, ensure_ascii=False).encode()
    return replace(task, digest=hashlib.sha256(encoded).hexdigest()[:16])


def _clause_json(clause: Clause) -> Any:
    if isinstance(clause, Phrase):
        return clause.text
    if isinstance(clause, AnyOf):
        return {"any_of": list(clause.phrases)}
    return {"regex": clause.regex, "label": clause.label}
