"""Fetching fix records, and the files they change, from the network: only when a person asks for a URL.

The importer works offline from a local file; this module is the one place
it reaches out, so nothing is fetched unless `panelgate suite import-bugs
--url` (or `url` in the admin API) names where. A dataset service page (the
Hugging Face datasets server's `/rows` answer) or a JSON Lines file is read
from the URL; a kept record's file is then read at its commit from GitHub's
raw file host. A machine that is offline gets a refusal that says so and
points to the local-file way; nothing is retried behind the person's back.
"""

from __future__ import annotations

import urllib.error
import urllib.parse
import urllib.request

from panelgate.store.errors import Invalid
from panelgate.suite.realbug_import import MAX_FILE_BYTES, FileSource
from panelgate.suite.realbug_screen import FixRecord

MAX_PAGE_BYTES = 50_000_000
TIMEOUT_S = 30.0
RAW_FILES = "https://raw.githubusercontent.com"


def fetch_text(url: str, limit: int = MAX_PAGE_BYTES) -> str:
    """The body at an http(s) URL as text, or `Invalid` saying why it could not be read."""
    if urllib.parse.urlsplit(url).scheme not in ("http", "https"):
        raise Invalid(f"`url` must be http or https, not {url[:80]!r}", field="url")
    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT_S) as reply:
            body: bytes = reply.read(limit + 1)
    except (urllib.error.URLError, TimeoutError, OSError) as error:
        reason = getattr(error, "reason", error)
        raise Invalid(
            f"could not fetch {url[:200]} ({reason}); offline, or the service is down: "
            "download the records and import the file instead",
            field="url",
        ) from None
    if len(body) > limit:
        raise Invalid(f"{url[:200]} is larger than {limit:,} bytes", field="url")
    return body.decode("utf-8", errors="replace")


def from_github() -> FileSource:
    """The file at the record's base commit, from GitHub's raw file host (None when it cannot be read)."""

    def read(record: FixRecord, path: str) -> str | None:
        quoted = urllib.parse.quote(path)
        try:
            return fetch_text(f"{RAW_FILES}/{record.repo}/{record.base_commit}/{quoted}", MAX_FILE_BYTES)
        except Invalid:
            return None

    return read
