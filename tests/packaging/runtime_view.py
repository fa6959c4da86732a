"""A folder that shows a new venv the runtime dependencies only, taken from this test venv, offline.

Installing a wheel's dependencies from PyPI would make the test need the
internet. Instead, `runtime_view` walks the wheel's `Requires-Dist` (without
the `test` extra) through the installed distributions of this venv,
transitively, markers and extras applied, and links each one's top-level
modules and metadata into a folder; a `.pth` file in the new venv adds that
folder to its path. A requirement this venv cannot satisfy (missing, or at a
version outside the range) fails here, like `pip check`; and a test tool, or
anything else only the test extra brings, is not in the folder, so code that
imported one at run time would fail in the new venv.
"""

from __future__ import annotations

import zipfile
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name


def wheel_requirements(wheel: Path) -> list[Requirement]:
    with zipfile.ZipFile(wheel) as archive:
        name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        text = archive.read(name).decode()
    return [
        Requirement(line.split(":", 1)[1].strip())
        for line in text.splitlines()
        if line.startswith("Requires-Dist:")
    ]


def runtime_closure(requirements: list[Requirement]) -> dict[str, metadata.Distribution]:
    """Every distribution the requirements need at run time (no extra asked), checked against its range."""
    found: dict[str, metadata.Distribution] = {}
    expanded: set[tuple[str, str]] = set()
    pending = [(requirement, "") for requirement in requirements]
    while pending:
        requirement, extra = pending.pop()
        if requirement.marker is not None and not requirement.marker.evaluate({"extra": extra}):
            continue
        key = canonicalize_name(requirement.name)
        distribution = found.setdefault(key, metadata.distribution(requirement.name))
        assert requirement.specifier.contains(distribution.version, prereleases=True), (
            f"{requirement} is not satisfied by the installed {requirement.name} {distribution.version}"
        )
        for wanted in ("", *sorted(requirement.extras)):
            if (key, wanted) not in expanded:
                expanded.add((key, wanted))
                pending += [(Requirement(line), wanted) for line in distribution.requires or ()]
    return found


def link_runtime(distributions: dict[str, metadata.Distribution], into: Path) -> None:
    """Link each distribution's top-level files and folders (its modules, its .dist-info) into `into`."""
    into.mkdir(parents=True)
    for distribution in distributions.values():
        site = Path(str(distribution.locate_file("")))
        for file in distribution.files or ():
            top = file.parts[0]
            if top in ("..", "__pycache__") or top.endswith(".pth"):
                continue
            target = into / top
            if not target.exists():
                target.symlink_to(site / top)
