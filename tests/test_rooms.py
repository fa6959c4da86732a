"""The rooms as drawn: docs/internals.md's table of who may import whom, held against the code.

A room is a top-level package (or module) of src/panelgate. An arrow the
table does not draw fails here, naming each module and the room it reached,
so a boundary is changed in the table, with a reason, or not at all. Every
import counts, including those inside functions and under `TYPE_CHECKING`:
a type ties a room to another as much as a call does. Import cycles between
modules fail too, counting only the imports a module runs when loaded
(module level, not under `TYPE_CHECKING`), since those are what make import
order matter. The page's paths are checked as well, so it never sends a
reader to a file that is gone.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "panelgate"
INTERNALS = ROOT / "docs" / "internals.md"
FIXTURES = PACKAGE / "suite" / "starter"
"""The suite's frozen task fixtures: files a model reads, not modules of ours (mypy skips them too)."""


@dataclass(frozen=True)
class Module:
    name: str
    path: Path

    @property
    def room(self) -> str:
        return room_of(self.name)


@dataclass(frozen=True)
class Import:
    target: str
    """The module imported, or for `from a import b` the submodule `a.b` when there is one."""
    runs_on_load: bool
    """At module level and not under `TYPE_CHECKING`: run whenever the module is imported."""


def room_of(module: str) -> str:
    """`panelgate.store.routes` -> `store`; the package's own `__init__` is the room `panelgate`."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def our_modules() -> dict[str, Module]:
    modules = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.is_relative_to(FIXTURES):
            continue
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        name = ".".join(parts)
        modules[name] = Module(name, path)
    return modules


def rooms_table() -> dict[str, set[str]]:
    """The table between the `rooms` markers: each room's name and the rooms it may import."""
    text = INTERNALS.read_text()
    block = re.search(r"<!-- rooms: begin -->(.*?)<!-- rooms: end -->", text, re.S)
    assert block, "docs/internals.md has no table between <!-- rooms: begin --> and <!-- rooms: end -->"
    table: dict[str, set[str]] = {}
    for line in block.group(1).splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        room = re.fullmatch(r"`([\w.]+)`", cells[0])
        if room and len(cells) >= 2:
            table[room.group(1)] = set(re.findall(r"`([\w.]+)`", cells[1]))
    return table


class ImportFinder(ast.NodeVisitor):
    """Every import in one module, resolved to an absolute name, noting whether it runs on load."""

    def __init__(self, module: Module, modules: dict[str, Module]) -> None:
        self._module = module
        self._modules = modules
        self._depth = 0
        """Inside how many functions or `TYPE_CHECKING` blocks the visitor stands."""
        self.found: list[Import] = []

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self._nested(node)

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> None:
        self._nested(node)

    def visit_If(self, node: ast.If) -> None:
        if "TYPE_CHECKING" not in ast.unparse(node.test):
            self.generic_visit(node)
            return
        self._depth += 1
        for child in node.body:
            self.visit(child)
        self._depth -= 1
        for child in node.orelse:
            self.visit(child)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self._add(alias.name)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        base = self._absolute(node)
        for alias in node.names:
            submodule = f"{base}.{alias.name}"
            self._add(submodule if submodule in self._modules else base)

    def _nested(self, node: ast.AST) -> None:
        self._depth += 1
        self.generic_visit(node)
        self._depth -= 1

    def _absolute(self, node: ast.ImportFrom) -> str:
        if not node.level:
            return node.module or ""
        package = self._module.name.split(".")
        if self._module.path.name != "__init__.py":
            package.pop()
        package = package[: len(package) - (node.level - 1)]
        return ".".join([*package, *([node.module] if node.module else [])])

    def _add(self, target: str) -> None:
        if target == "panelgate" or target.startswith("panelgate."):
            self.found.append(Import(target, runs_on_load=self._depth == 0))


def imports_of(module: Module, modules: dict[str, Module]) -> list[Import]:
    finder = ImportFinder(module, modules)
    finder.visit(ast.parse(module.path.read_text(), str(module.path)))
    return finder.found


def wrong_arrows(modules: dict[str, Module], table: dict[str, set[str]]) -> list[str]:
    """Each (module, room) pair where a module imports a room its own room's row leaves out."""
    wrong = set()
    for module in modules.values():
        allowed = table.get(module.room, set())
        for found in imports_of(module, modules):
            room = room_of(found.target)
            if room != module.room and room not in allowed:
                wrong.add(f"{module.name} imports {room} ({found.target})")
    return sorted(wrong)


def loaded_imports(modules: dict[str, Module]) -> Iterator[tuple[str, set[str]]]:
    """Each module with the modules of ours it imports as it loads."""
    for module in modules.values():
        runs = {found.target for found in imports_of(module, modules) if found.runs_on_load}
        yield module.name, {target for target in runs if target in modules and target != module.name}


def test_every_room_has_a_row_and_every_row_a_room() -> None:
    rooms = {module.room for module in our_modules().values()}
    table = rooms_table()
    unlisted, stale = sorted(rooms - table.keys()), sorted(table.keys() - rooms)
    assert not unlisted, f"rooms with no row in docs/internals.md's table: {unlisted}"
    assert not stale, f"rows for rooms src/panelgate does not have: {stale}"


def test_every_room_allowed_in_a_row_is_a_room() -> None:
    table = rooms_table()
    unknown = {f"{room} -> {allowed}" for room, row in table.items() for allowed in row - table.keys()}
    assert not unknown, f"the rooms table allows rooms it has no row for: {sorted(unknown)}"


def test_rooms_import_only_the_rooms_their_row_allows() -> None:
    wrong = wrong_arrows(our_modules(), rooms_table())
    assert not wrong, "arrows docs/internals.md's rooms table does not draw:\n" + "\n".join(wrong)


def test_no_modules_import_each_other_in_a_cycle() -> None:
    try:
        tuple(TopologicalSorter(dict(loaded_imports(our_modules()))).static_order())
    except CycleError as error:
        raise AssertionError(f"import cycle: {' -> '.join(error.args[1])}") from None


REPOSITORY_DIRS = ("src", "tests", "docs", "scripts", "benchmarks")


def test_every_path_internals_names_exists() -> None:
    """Backquoted paths from the repository's root, or under src/panelgate/ starting with a room."""
    rooms = {path.name for path in PACKAGE.iterdir() if (path / "__init__.py").exists()}
    missing = []
    for path in sorted(set(re.findall(r"`([^`\s]+/[^`\s]*)`", INTERNALS.read_text()))):
        first = path.split("/")[0]
        under = ROOT if first in REPOSITORY_DIRS else PACKAGE if first in rooms else None
        if under and not any(under.glob(re.sub(r"<\w+>", "*", path).rstrip("/"))):
            missing.append(path)
    assert not missing, f"docs/internals.md names paths that do not exist: {missing}"
