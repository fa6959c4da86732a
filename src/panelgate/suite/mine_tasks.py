"""Turning a judged panel's verified claims into draft claim tasks: the `task.json` objects and fixtures.

A claim a person checked and found real is a claim task whose right answer
is `VERDICT: TRUE`; one found false, `VERDICT: FALSE` (and answering TRUE
to it is believing a false claim, the confidently-wrong count). The
fixtures are the files the panel was sent, exactly, so the task asks what
the panel was asked. Every task is a draft: a claim written in a hurry may
need rewording before it is a fair question, and a person says when.

Ids come from the panel and the claim's words, so mining a panel again
finds the tasks it already wrote instead of writing them twice.

Pure: the panel's judged seats and the files in, task documents out.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import PurePosixPath
from typing import Any, Literal

from panelgate.core.errors import BadRequest
from panelgate.suite.task import CLAIM
from panelgate.suite.task_file import MAX_FIXTURE_BYTES

Truth = Literal["TRUE", "FALSE"]
LARGE_FIXTURES_CHARS = 40_000
"""Past this many characters a task may not fit the smaller models' context windows."""
TRUE_CLAUSE = {"regex": r"VERDICT:\s*TRUE\b", "label": "VERDICT: TRUE"}
FALSE_CLAUSE = {"regex": r"VERDICT:\s*FALSE\b", "label": "VERDICT: FALSE"}
MAX_FILES = 100
MAX_PATH_CHARS = 1000
MAX_NAME_BYTES = 200
"""Below the file systems' limits on a path and on one name in it."""
NO_FILES = "ask with -f kept no files for this panel"


@dataclass(frozen=True)
class JudgedSeat:
    """One seat of the panel with its current verdict's checked claims."""

    call: str
    alias: str
    real: tuple[str, ...]
    false: tuple[str, ...]
    actor: str
    at: datetime


@dataclass(frozen=True)
class MinedTask:
    """A claim task to write: its `task.json` object and its fixtures (path under `fixtures/` → text)."""

    id: str
    claim: str
    truth: Truth
    call: str
    alias: str
    document: dict[str, Any]
    fixtures: dict[str, str]


@dataclass(frozen=True)
class Mining:
    tasks: tuple[MinedTask, ...]
    warnings: tuple[str, ...]


def fixture_path(shown: str) -> str:
    """Where a file sent as `shown` lives under `fixtures/`: the same path made relative and plain.

    `/home/me/app/a.py` becomes `home/me/app/a.py` and `../lib/b.py` becomes `lib/b.py`, so the
    path the mined task shows still reads like the one the panel saw."""
    parts = PurePosixPath(shown.replace("\\", "/")).parts
    return "/".join(part for part in parts if part.strip() and part not in ("/", ".", "..")) or "file"


def fixtures_of(files: Mapping[str, str]) -> dict[str, str]:
    """The files sent, under their fixture paths; refused when they cannot all be fixtures."""
    if not files:
        raise BadRequest(NO_FILES, param="files")
    if len(files) > MAX_FILES:
        raise BadRequest(
            f"{len(files)} files were sent; a mined task holds at most {MAX_FILES}", param="files"
        )
    fixtures: dict[str, str] = {}
    for shown, text in files.items():
        path = _usable_path(shown)
        if path in fixtures:
            raise BadRequest(f"`{shown}` and another file both become fixtures/{path}", param="files")
        fixtures[path] = text
    folders = {"/".join(path.split("/")[:end]) for path in fixtures for end in range(1, path.count("/") + 1)}
    if clash := sorted(folders & set(fixtures)):
        raise BadRequest(f"fixtures/{clash[0]} would be both a file and a folder", param="files")
    sizes = {path: _size(path, text) for path, text in fixtures.items()}
    if sum(sizes.values()) > MAX_FIXTURE_BYTES:
        raise BadRequest(
            f"the files are {sum(sizes.values()):,} bytes together; a task's fixtures hold at most "
            f"{MAX_FIXTURE_BYTES:,}",
            param="files",
        )
    return fixtures


def _usable_path(shown: str) -> str:
    path = fixture_path(shown)
    if (
        len(path) > MAX_PATH_CHARS
        or not path.isprintable()
        or any(len(part.encode()) > MAX_NAME_BYTES for part in path.split("/"))
    ):
        raise BadRequest(f"`{shown[:200]}` cannot be a file's path under fixtures/", param="files")
    return path


def _size(path: str, text: str) -> int:
    try:
        size = len(text.encode("utf-8"))
    except UnicodeEncodeError:
        raise BadRequest(f"`{path}` holds text that is not valid Unicode", param="files") from None
    if size > MAX_FIXTURE_BYTES:
        raise BadRequest(
            f"`{path}` is {size:,} bytes; a task's fixture holds at most {MAX_FIXTURE_BYTES:,}", param="files"
        )
    return size


def task_id(panel: str, claim: str) -> str:
    """Stable for the same panel and claim (any case, any spacing), within the task id's alphabet."""
    key = f"{panel}\n{' '.join(claim.split()).casefold()}".encode()
    readable = "".join(c if c.isascii() and (c.isalnum() or c in "._-") else "-" for c in panel.lower())
    return f"mined-{readable[:60]}-{hashlib.sha256(key).hexdigest()[:10]}"


def mine(panel: str, seats: Sequence[JudgedSeat], files: Mapping[str, str]) -> Mining:
    """One draft claim task per verified claim of the panel's seats (the first seat to judge it wins)."""
    chosen: dict[str, tuple[str, Truth, JudgedSeat]] = {}
    truths: dict[str, set[Truth]] = {}
    for seat in seats:
        judged: tuple[tuple[tuple[str, ...], Truth], ...] = ((seat.real, "TRUE"), (seat.false, "FALSE"))
        for claims, truth in judged:
            for claim in claims:
                key = " ".join(claim.split()).casefold()
                truths.setdefault(key, set()).add(truth)
                chosen.setdefault(key, (claim, truth, seat))
    if not chosen:
        raise BadRequest(
            f"panel `{panel}` has no verdict with checked claims; record one with "
            "`panelgate verdict <call id> --useful --real CLAIM` (or --false CLAIM)",
            param="panel",
        )
    fixtures = fixtures_of(files)
    warnings = [
        f"not mined: `{claim}` was judged real on one seat and false on another"
        for key, (claim, _, _) in chosen.items()
        if len(truths[key]) > 1
    ]
    tasks = tuple(
        _task(panel, claim, truth, seat, fixtures)
        for key, (claim, truth, seat) in chosen.items()
        if len(truths[key]) == 1
    )
    size = sum(len(text) for text in fixtures.values())
    if size > LARGE_FIXTURES_CHARS:
        warnings.append(
            f"the fixtures hold {size:,} characters (more than {LARGE_FIXTURES_CHARS:,}): models with "
            "small context windows may be left out of these tasks; trim the files under fixtures/ "
            "before clearing the draft flag if that matters"
        )
    return Mining(tasks, tuple(warnings))


def _task(panel: str, claim: str, truth: Truth, seat: JudgedSeat, fixtures: dict[str, str]) -> MinedTask:
    identifier = task_id(panel, claim)
    names = ", ".join(f"`{path}`" for path in fixtures)
    verified = "real" if truth == "TRUE" else "false"
    document: dict[str, Any] = {
        "id": identifier,
        "title": f"Mined claim: {_shortened(claim, 80)}",
        "why": f"{truth}. {seat.actor} checked this claim from {seat.alias}'s answer ({seat.call}) "
        f"and found it {verified}.",
        "shape": CLAIM,
        "prompt": f"Here is a claim about some code; the files it is about ({names}) are attached.\n\n"
        f"Claim: {claim}\n\n"
        "Decide from the attached code alone whether the claim is true. Answer on the first line with "
        "exactly `VERDICT: TRUE` or `VERDICT: FALSE`, then give your reasons in a few sentences, "
        "citing the code.",
        "attach": list(fixtures),
        "must_find": [TRUE_CLAUSE if truth == "TRUE" else FALSE_CLAUSE],
        "must_not_claim": [] if truth == "TRUE" else [TRUE_CLAUSE],
        "score_in": "first_line",
        "draft": True,
        "source": f"mined from panel {panel}, seat {seat.call} ({seat.alias}); claim verified {verified} "
        f"by {seat.actor} on {seat.at.date().isoformat()}",
        "license": "the terms of the files sent with the panel",
    }
    return MinedTask(identifier, claim, truth, seat.call, seat.alias, document, dict(fixtures))


def _shortened(text: str, most: int) -> str:
    return text if len(text) <= most else text[: most - 1].rstrip() + "…"
