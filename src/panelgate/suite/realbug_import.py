"""Importing real fixed bugs: records in, bug/control task pairs written to the data folder, rejections said.

Records come as JSON Lines (one fix record a line, `realbug_screen.py` says
which fields), or as a dataset service's page of rows (`{"rows": [{"row":
{...}}]}`, as the Hugging Face datasets server answers). The task needs the
changed file's whole text before the fix, which published records do not
carry; it is found, in this order, in the record's own `pre_fix_text`, in a
local checkout of the project at the base commit (`checkout`: the file at
`<checkout>/<path>`, never outside it), or, only when the person fetched the
records from a URL and so is online by choice, at the file's raw URL on
GitHub at that commit. The hunk must match that text where it says, so a
checkout at the wrong commit is rejected, not turned into a wrong task.

Tasks are written into the data folder (`<data>/suite/tasks/`), never into
the package: the repository ships no third-party code. They are drafts
unless the person says otherwise, as seeded pairs are.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from panelgate.store.errors import Invalid
from panelgate.suite.library import STARTER_DIR, tasks_dir
from panelgate.suite.realbug_screen import FixRecord, Rejection, fix_record, screen
from panelgate.suite.realbug_tasks import RealBugPair, real_bug_pair
from panelgate.suite.seed_write import ids_in, write_task

MAX_RECORDS = 10_000
MAX_FILE_BYTES = 1_000_000
"""A module larger than this is generated or vendored more often than written by hand."""

FileSource = Callable[[FixRecord, str], str | None]
"""The changed file's text before the fix (record, path), or None when this source does not hold it."""


@dataclass(frozen=True)
class Rejected:
    record: str
    kind: str
    why: str

    def as_dict(self) -> dict[str, str]:
        return {"record": self.record, "kind": self.kind, "why": self.why}


@dataclass
class ImportReport:
    read: int = 0
    written: list[dict[str, Any]] = field(default_factory=list)
    rejected: list[Rejected] = field(default_factory=list)


def read_records(text: str) -> list[tuple[str, object]]:
    """Each record with where it was read (`line N`, `row N`): JSON Lines, or a page of rows."""
    page = _json(text) if text.lstrip().startswith("{") else None
    if isinstance(page, dict) and isinstance(page.get("rows"), list):
        return [(f"row {n}", _row(item)) for n, item in enumerate(page["rows"], start=1)]
    found = [(f"line {n}", _json(line)) for n, line in enumerate(text.splitlines(), start=1) if line.strip()]
    if len(found) > MAX_RECORDS:
        raise Invalid(f"the file holds {len(found):,} records; at most {MAX_RECORDS:,} at once", field="file")
    return found


def _row(item: object) -> object:
    return item.get("row", item) if isinstance(item, dict) else item


def _json(text: str) -> object:
    try:
        return json.loads(text)
    except ValueError:
        return None  # rejected as malformed, with the others still read


def from_record(record: FixRecord, path: str) -> str | None:
    return record.pre_fix_text


def from_checkout(folder: Path) -> FileSource:
    """The file as it lies in a local checkout of the project (which should be at the base commit)."""
    root = folder.resolve()

    def read(record: FixRecord, path: str) -> str | None:
        place = (root / path).resolve()
        if not place.is_relative_to(root) or not place.is_file() or place.stat().st_size > MAX_FILE_BYTES:
            return None
        try:
            return place.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None

    return read


def import_bugs(
    data_dir: Path,
    records: Iterable[tuple[str, object]],
    sources: Iterable[FileSource],
    *,
    draft: bool = True,
) -> ImportReport:
    """Screen every record, write a pair for each one kept, and say why each other one was not."""
    target = tasks_dir(data_dir)
    taken = ids_in(target) | ids_in(STARTER_DIR)
    readers = list(sources)
    report = ImportReport()
    for where, raw in records:
        report.read += 1
        made = _pair(raw, readers, draft)
        if isinstance(made, Rejected):
            report.rejected.append(Rejected(made.record or where, made.kind, made.why))
            continue
        key, pair = made.record.key, made.pair
        if pair.bug["id"] in taken:
            report.rejected.append(Rejected(key, "taken", f"already imported as {pair.bug['id']}"))
            continue
        write_task(target, pair.bug)
        write_task(target, pair.control)
        taken |= {pair.bug["id"], pair.control["id"]}
        report.written.append(pair.summary(key, made.path))
    return report


@dataclass(frozen=True)
class _Made:
    record: FixRecord
    path: str
    pair: RealBugPair


def _pair(raw: object, readers: list[FileSource], draft: bool) -> _Made | Rejected:
    """The record's pair, or its rejection (naming the record once it could be read)."""
    record = fix_record(raw)
    if isinstance(record, Rejection):
        return Rejected("", record.kind, record.why)
    fix = screen(record)
    if isinstance(fix, Rejection):
        return Rejected(record.key, fix.kind, fix.why)
    text = next((found for read in readers if (found := read(record, fix.path)) is not None), None)
    if text is None:
        why = f"no text of `{fix.path}` before the fix: give a checkout of {record.repo} at the base commit"
        return Rejected(record.key, "no-source", why)
    pair = real_bug_pair(fix, text, draft=draft)
    if isinstance(pair, Rejection):
        return Rejected(record.key, pair.kind, pair.why)
    return _Made(record, fix.path, pair)
