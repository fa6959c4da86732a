"""Packages that load their modules when first asked: a stand-in for a third-party package's file, and
our own packages' re-exports on demand. Each test writes a small package of its own to import."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from panelgate.core.package_on_demand import stand_in

MakePackage = Callable[[str, str], None]

EXPORTING = """
from panelgate.core.package_on_demand import exports_on_demand

__getattr__ = exports_on_demand(__name__, {"Light": "light", "Heavy": "heavy"})
"""

EAGER = """
from {name}.light import Light
from {name}.heavy import Heavy
"""


@pytest.fixture
def make_package(tmp_path: Path) -> Iterator[MakePackage]:
    made: list[str] = []

    def make(name: str, init: str) -> None:
        folder = tmp_path / name
        folder.mkdir()
        (folder / "__init__.py").write_text(init.replace("{name}", name))
        (folder / "light.py").write_text("class Light: ...\n")
        (folder / "heavy.py").write_text("class Heavy: ...\n")
        made.append(name)

    sys.path.insert(0, str(tmp_path))
    yield make
    sys.path.remove(str(tmp_path))
    for name in list(sys.modules):
        if name.split(".")[0] in made:
            del sys.modules[name]


def test_an_exported_name_imports_its_module_only_when_asked_for(make_package: MakePackage) -> None:
    make_package("pg_exports", EXPORTING)
    package = importlib.import_module("pg_exports")
    assert "pg_exports.light" not in sys.modules and "pg_exports.heavy" not in sys.modules

    from pg_exports import Light

    assert Light.__module__ == "pg_exports.light"
    assert "pg_exports.heavy" not in sys.modules, "only the module of the name asked for"
    assert package.__dict__["Light"] is Light, "kept on the package after the first ask"
    with pytest.raises(AttributeError, match="has no attribute 'Missing'"):
        package.Missing  # noqa: B018


def test_a_stand_in_loads_only_its_parts_and_the_whole_package_for_any_other_name(
    make_package: MakePackage,
) -> None:
    make_package("pg_eager", EAGER)
    stand_in("pg_eager", {"light": ("Light",)})
    from pg_eager import Light

    assert Light.__module__ == "pg_eager.light"
    assert "pg_eager.heavy" not in sys.modules, "the package's own file has not run"

    from pg_eager import Heavy

    assert Heavy.__module__ == "pg_eager.heavy", "any other name runs the package's file"
