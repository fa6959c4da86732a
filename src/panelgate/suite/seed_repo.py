"""Reading a person's repository for seeding: the Python modules whose functions may carry a planted bug.

The point of seeding is code no model has trained on, so the modules come
from the person's own working copy, read where it lies and never copied
whole anywhere. Tests, vendored environments, build output and caches are
passed over: a fault planted in a test or in someone else's package says
nothing about reviewing the person's code. A module that does not decode
or parse is skipped rather than failing the run: real trees hold a few.
"""

from __future__ import annotations

import os
import tokenize
from dataclasses import dataclass
from pathlib import Path

from panelgate.store.errors import Invalid

SKIPPED_FOLDERS = frozenset(
    {".git", ".hg", ".svn", ".venv", "venv", "env", ".env", "node_modules", "__pycache__", "build", "dist"}
    | {"site-packages", ".tox", ".nox", ".mypy_cache", ".ruff_cache", ".pytest_cache", "tests", "test"}
)
MAX_MODULE_BYTES = 400_000
"""Larger modules are generated or vendored more often than written by hand."""
MAX_MODULES = 5_000
MAX_ENTRIES = 100_000
"""Past these, the folder is more than one project (a home folder, `/`): refused, not walked for minutes."""


@dataclass(frozen=True)
class RepoModule:
    """One module's text and its path inside the repository (`/`-separated, as shown in a task)."""

    path: str
    text: str


def read_modules(root: Path) -> list[RepoModule]:
    """The repository's own Python modules, in path order (so a seed picks the same ones every time)."""
    found: list[RepoModule] = []
    entries = 0
    for folder, subfolders, files in os.walk(root):
        subfolders[:] = sorted(name for name in subfolders if _wanted_folder(name))
        entries += len(subfolders) + len(files)
        if entries > MAX_ENTRIES or len(found) > MAX_MODULES:
            raise Invalid(
                f"{root} holds more than {MAX_MODULES:,} Python modules or {MAX_ENTRIES:,} files; "
                "register the folder of one project instead",
                field="repo",
            )
        for name in sorted(files):
            path = Path(folder) / name
            if _wanted_file(name) and path.is_file() and not path.is_symlink():
                text = _read(path)
                if text is not None:
                    found.append(RepoModule(path.relative_to(root).as_posix(), text))
    return sorted(found, key=lambda module: module.path)


def _wanted_folder(name: str) -> bool:
    return name not in SKIPPED_FOLDERS and not name.startswith(".") and not name.endswith(".egg-info")


def _wanted_file(name: str) -> bool:
    test_module = name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py"
    return name.endswith(".py") and not test_module


def _read(path: Path) -> str | None:
    """The module's text with `\\n` line ends, or None when it is too large or does not decode."""
    try:
        if path.stat().st_size > MAX_MODULE_BYTES:
            return None
        with tokenize.open(path) as handle:  # honours a PEP 263 encoding line
            return handle.read()
    except (OSError, SyntaxError, UnicodeDecodeError):
        return None
