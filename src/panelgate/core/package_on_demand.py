"""A package whose own file waits: a few of its modules now, the rest of it when first asked for.

Python runs a package's `__init__` before any module in it, and some
packages' files import far more than a process needs: SQLAlchemy's
`sqlalchemy.ext.asyncio` loads the whole ORM beside the engine, uvicorn's
package loads its command line (Click) beside the server. Such a process
pays for them in memory for as long as it runs.

`stand_in(package, parts)` registers a stand-in for the package first (with
its real spec and path, so the modules in it import as usual), imports only
the modules named in `parts` and gives the stand-in the names listed for
each: `from uvicorn import Config` works as before. Any other name asked of
the stand-in runs the real package file into it first, so code that wants
the rest still gets it, at the old cost. A process that imported the
package before keeps it as it is.

Our own packages that re-export their public names (`panelgate.hubs`)
use `exports_on_demand` instead: the package file imports nothing, and a
name is imported from its module when first asked for (PEP 562), so a
process that needs one small module of the package does not load the rest.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import types
from collections.abc import Callable, Mapping, Sequence
from typing import Any


class _PackageOnDemand(types.ModuleType):
    """The package, with the names of the modules loaded so far; everything else on first request."""

    _whole = False

    def __getattr__(self, name: str) -> Any:
        # a module of the package not imported yet (`from . import exc`) is the import system's to load
        if self._whole or importlib.util.find_spec(f"{self.__name__}.{name}") is not None:
            raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}")
        self._whole = True
        assert self.__spec__ is not None and self.__spec__.loader is not None
        self.__spec__.loader.exec_module(self)  # the package's own file, run into this module
        return getattr(self, name)


def stand_in(package: str, parts: Mapping[str, Sequence[str]]) -> None:
    """Make `package` importable with only the modules in `parts` (once; later calls do nothing)."""
    if package in sys.modules:
        return
    spec = importlib.util.find_spec(package)
    assert spec is not None and spec.submodule_search_locations is not None
    module = _PackageOnDemand(package)
    module.__spec__ = spec
    module.__path__ = list(spec.submodule_search_locations)
    module.__file__ = spec.origin
    module.__loader__ = spec.loader
    module.__package__ = package
    sys.modules[package] = module
    for part, names in parts.items():
        loaded = importlib.import_module(f"{package}.{part}")
        for name in names:
            setattr(module, name, getattr(loaded, name))


def exports_on_demand(package: str, where: Mapping[str, str]) -> Callable[[str], Any]:
    """A package's module-level `__getattr__`: each name in `where` (name → the package's module that
    defines it) is imported from that module when first asked for, then kept on the package."""

    def export(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        setattr(sys.modules[package], name, value)
        return value

    return export
