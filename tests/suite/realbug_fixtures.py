"""Where the real-bug importer's fixtures are: the fix records and the made-up project they apply to."""

from __future__ import annotations

from pathlib import Path

FIXTURES = Path(__file__).parents[1] / "fixtures" / "realbug"
PROJECT = FIXTURES / "project"
RECORDS = FIXTURES / "records.jsonl"
