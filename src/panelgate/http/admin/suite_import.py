"""Importing real fixed bugs through the admin API: `POST /api/suite/import-bugs`.

The records are read where the server runs, like a seeding repository: a
JSON Lines file on the server's machine (`file`), or, only when the person
names one, a URL (`url`: a dataset service page or a JSON Lines file; the
changed files are then read from GitHub at each commit). `checkout` names a
local copy of the project at the base commit for records that do not carry
the file's text. The work reads files and perhaps the network, so it runs
on a worker thread; the answer lists the pairs written and every record
rejected, with why.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from fastapi import APIRouter, Request
from pydantic import BaseModel, ConfigDict, Field

from panelgate.core.errors import BadRequest
from panelgate.http.admin.suite_seed import valid
from panelgate.http.body import json_body, read_json_object
from panelgate.http.services import services
from panelgate.suite.realbug_fetch import fetch_text, from_github
from panelgate.suite.realbug_import import (
    FileSource,
    ImportReport,
    from_checkout,
    from_record,
    import_bugs,
    read_records,
)

router = APIRouter()
MAX_BODY = 20_000
MAX_FILE_BYTES = 50_000_000


class ImportAsked(BaseModel):
    """`POST /api/suite/import-bugs`: where the fix records are, and where the changed files are."""

    model_config = ConfigDict(extra="forbid", strict=True)

    file: str | None = Field(
        default=None, min_length=1, max_length=4096, description="a JSON Lines file, absolute, on the server"
    )
    url: str | None = Field(
        default=None, min_length=1, max_length=4096, description="fetch the records from here (online)"
    )
    checkout: str | None = Field(
        default=None,
        min_length=1,
        max_length=4096,
        description="a folder on the server holding the project at the base commit",
    )
    ready: bool = Field(default=False, description="false (default): the pairs are drafts until checked")


class RealBugShown(BaseModel):
    record: str = Field(description="the record's `instance_id`, else `<repo>@<commit>`")
    bug: str = Field(description="the task before the fix (shape `bug`)")
    control: str = Field(description="the task after the fix (shape `control`)")
    path: str
    fault_lines: list[int] = Field(description="file lines the answer may name")
    draft: bool


class RejectedShown(BaseModel):
    record: str = Field(description="the record's id, or where it stood (`line N`)")
    kind: str = Field(
        description="malformed, multi-file, test-file, not-python, hunks, too-large, comments-only, "
        "no-source, does-not-apply or taken"
    )
    why: str


class Imported(BaseModel):
    read: int
    written: list[RealBugShown]
    rejected: list[RejectedShown]


@router.post("/suite/import-bugs", response_model=Imported, openapi_extra=json_body(ImportAsked))
async def import_real_bugs(request: Request) -> Imported:
    """Write a bug task and its control for each fair fix record; say why each other record was not."""
    asked = valid(ImportAsked, await read_json_object(request, MAX_BODY))
    if (asked.file is None) == (asked.url is None):
        raise BadRequest("give `file` (a JSON Lines file on the server) or `url`, one of them", param="file")
    data_dir = services(request).settings.data_dir
    report = await asyncio.to_thread(_run, data_dir, asked)
    return Imported(
        read=report.read,
        written=[RealBugShown.model_validate(pair) for pair in report.written],
        rejected=[RejectedShown.model_validate(r.as_dict()) for r in report.rejected],
    )


def _run(data_dir: Path, asked: ImportAsked) -> ImportReport:
    sources: list[FileSource] = [from_record]
    if asked.checkout is not None:
        sources.append(from_checkout(_folder(asked.checkout, "checkout")))
    if asked.url is not None:
        text = fetch_text(asked.url)
        sources.append(from_github())
    else:
        text = _read_file(Path(str(asked.file)))
    return import_bugs(data_dir, read_records(text), sources, draft=not asked.ready)


def _folder(path: str, field: str) -> Path:
    folder = Path(path)
    if not folder.is_absolute() or not folder.is_dir():
        raise BadRequest(
            f"`{field}` {path[:200]!r} is not an absolute path to a folder on the server", param=field
        )
    return folder


def _read_file(path: Path) -> str:
    if not path.is_absolute() or not path.is_file():
        raise BadRequest(
            f"`file` {str(path)[:200]!r} is not an absolute path to a file on the server", param="file"
        )
    if path.stat().st_size > MAX_FILE_BYTES:
        raise BadRequest(f"`file` is larger than {MAX_FILE_BYTES:,} bytes; split it", param="file")
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise BadRequest(f"`file` could not be read as UTF-8 text ({error})", param="file") from None
