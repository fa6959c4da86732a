"""SQLAlchemy's asyncio engine, without the ORM its package loads beside it.

The package file of `sqlalchemy.ext.asyncio` imports the asyncio ORM session
as well as the engine, and with the session the whole ORM: about 7.6 MiB
that every gateway process would keep for good, though the store uses Core
alone. Python runs a package's own file before any module in it, so
`without_the_orm()` first registers a stand-in for the package (with its
real spec and path, so the modules in it import as usual), imports the
engine and result modules only, and gives the stand-in their names:
`from sqlalchemy.ext.asyncio import AsyncConnection` works as before.

Any other name asked of the stand-in (`AsyncSession`, say) runs the real
package file into it first, so code that wants the ORM session still gets it,
at the old cost. A process that imported the package before keeps it as is.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import types
from typing import Any

PACKAGE = "sqlalchemy.ext.asyncio"
_PARTS = {
    "engine": (
        "AsyncConnection",
        "AsyncEngine",
        "AsyncTransaction",
        "async_engine_from_config",
        "create_async_engine",
        "create_async_pool_from_url",
    ),
    "result": ("AsyncMappingResult", "AsyncResult", "AsyncScalarResult", "AsyncTupleResult"),
}
"""The package's modules the store uses (neither imports the ORM), and the names the package gives
from each."""


class _PackageOnDemand(types.ModuleType):
    """The package, with its engine's and results' names; everything else on first request."""

    _whole = False

    def __getattr__(self, name: str) -> Any:
        # a module of the package not imported yet (`from . import exc`) is the import system's to load
        if self._whole or importlib.util.find_spec(f"{PACKAGE}.{name}") is not None:
            raise AttributeError(f"module {PACKAGE!r} has no attribute {name!r}")
        self._whole = True
        assert self.__spec__ is not None and self.__spec__.loader is not None
        self.__spec__.loader.exec_module(self)  # the package's own file, run into this module
        return getattr(self, name)


def without_the_orm() -> None:
    """Make `sqlalchemy.ext.asyncio` importable without the ORM (once; later calls do nothing)."""
    if PACKAGE in sys.modules:
        return
    spec = importlib.util.find_spec(PACKAGE)
    assert spec is not None and spec.submodule_search_locations is not None
    stand_in = _PackageOnDemand(PACKAGE)
    stand_in.__spec__ = spec
    stand_in.__path__ = list(spec.submodule_search_locations)
    stand_in.__file__ = spec.origin
    stand_in.__loader__ = spec.loader
    stand_in.__package__ = PACKAGE
    sys.modules[PACKAGE] = stand_in
    for part, names in _PARTS.items():
        module = importlib.import_module(f"{PACKAGE}.{part}")
        for name in names:
            setattr(stand_in, name, getattr(module, name))
