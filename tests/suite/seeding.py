"""What the seeding tests read back out of a seeded task: the code listing as the prompt numbers it."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

from panelgate.suite.seed_regions import ModuleSource, SeedableFunction, seedable_functions
from panelgate.suite.seed_repo import RepoModule, read_modules

SAMPLE_REPO = Path(__file__).parent / "sample_repo"
PANELGATE_SRC = Path(__file__).parents[2] / "src" / "panelgate"
LISTED_LINE = re.compile(r"^ *(\d+) \| (.*)$")


def sample_modules() -> list[RepoModule]:
    return read_modules(SAMPLE_REPO)


def listing(task: dict[str, Any]) -> list[str]:
    """The code lines of a task's prompt, checking they are numbered 1, 2, 3... as shown."""
    block = task["prompt"].split("```python\n", 1)[1].split("```", 1)[0]
    lines = []
    for expected, shown in enumerate(block.splitlines(), start=1):
        found = LISTED_LINE.match(shown)
        assert found is not None and int(found.group(1)) == expected, shown
        lines.append(found.group(2))
    return lines


def parsed_in_place(modules: list[RepoModule], path: str, qualname: str, lines: list[str]) -> ast.Module:
    """The module parsed with `lines` in place of the function (a method keeps its indentation)."""
    source, function = function_in(modules, path, qualname)
    text = [line.rstrip("\n") for line in source.lines]
    return ast.parse("\n".join([*text[: function.first_line - 1], *lines, *text[function.last_line :]]))


def function_in(modules: list[RepoModule], path: str, qualname: str) -> tuple[ModuleSource, SeedableFunction]:
    module = next(m for m in modules if m.path == path)
    source = ModuleSource(module.path, module.text)
    return source, next(f for f in seedable_functions(source) if f.qualname == qualname)


def lines_as_written(modules: list[RepoModule], path: str, qualname: str) -> list[str]:
    source, function = function_in(modules, path, qualname)
    return [line.rstrip("\n") for line in source.lines[function.first_line - 1 : function.last_line]]
