"""The repositories a person has named for seeding: a name and a folder on the server's machine.

Kept in `<data folder>/suite/repos.json`, not in the database, on purpose:
a registered folder is a path on one machine, and the data folder belongs
to that machine too, while the database may be a PostgreSQL shared by
gateway processes on other machines, where the same path means nothing or
something else. The seeded tasks land in the same data folder, so the
registry and what it produced stay together. Writes replace the file
whole (write a temporary file, then rename), so a reader never sees half.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from panelgate.core.files import write_atomically
from panelgate.store.errors import Invalid, NotFound

REPO_NAME = re.compile(r"^[a-z0-9][a-z0-9._-]{0,39}$")
"""Short enough to fit in a task id (`seeded-<name>-<digest>-control`), in the characters ids allow."""


def repos_file(data_dir: Path) -> Path:
    return data_dir / "suite" / "repos.json"


def registered(file: Path) -> dict[str, Path]:
    """Every registered repository by name, in name order (none when the file is missing)."""
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as error:
        raise Invalid(f"{file} cannot be read ({error}); fix or remove it", field="repo") from None
    repos = data.get("repos") if isinstance(data, dict) else None
    if not isinstance(repos, dict) or not all(isinstance(p, str) for p in repos.values()):
        raise Invalid(f'{file} must hold {{"repos": {{name: folder}}}}; fix or remove it', field="repo")
    return {name: Path(repos[name]) for name in sorted(repos)}


def register(file: Path, name: str, folder: str, *, name_field: str = "repo") -> Path:
    """Name a folder on this machine for seeding (a known name moves to the new folder)."""
    check_name(name, name_field)
    path = Path(folder)
    if not path.is_absolute():
        raise Invalid(f"`{folder}` is not an absolute path on the server's machine", field="path")
    if not _is_folder(path):
        raise Invalid(f"`{folder}` is not a folder on the server's machine", field="path")
    repos = registered(file)
    repos[name] = path.resolve()
    _write(file, {name: str(repos[name]) for name in sorted(repos)})
    return repos[name]


def folder_of(file: Path, name: str) -> Path:
    """The folder registered as `name`, which must still be there."""
    check_name(name)
    repos = registered(file)
    if name not in repos:
        known = ", ".join(repos) or "none yet"
        raise NotFound(
            f"no repository is registered as `{name}` (registered: {known}); "
            "register it with `panelgate suite seed --repo NAME --path DIR`",
            field="repo",
        )
    if not _is_folder(repos[name]):
        raise Invalid(
            f"repository `{name}` was registered at {repos[name]}, which is no longer a folder", field="repo"
        )
    return repos[name]


def check_name(name: str, field: str = "repo") -> None:
    if not REPO_NAME.fullmatch(name):
        raise Invalid(
            f"`{name}` is not a repository name: use up to 40 lower-case letters, digits, `.`, `_` and `-`, "
            "first a letter or digit",
            field=field,
        )


def _is_folder(path: Path) -> bool:
    """Whether `path` is a folder; a name the file system cannot even look up (NUL, too long) is not."""
    try:
        return path.is_dir()
    except (OSError, ValueError):
        return False


def _write(file: Path, repos: dict[str, str]) -> None:
    write_atomically(file, json.dumps({"repos": repos}, indent=2, ensure_ascii=False) + "\n")
