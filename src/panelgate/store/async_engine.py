"""SQLAlchemy's asyncio engine, without the ORM its package loads beside it.

The package file of `sqlalchemy.ext.asyncio` imports the asyncio ORM session
as well as the engine, and with the session the whole ORM: about 7.6 MiB
that every gateway process would keep for good, though the store uses Core
alone. `without_the_orm()` registers the package with its engine and result
modules only (`core/package_on_demand.py`): `from sqlalchemy.ext.asyncio
import AsyncConnection` works as before, and asking for `AsyncSession` loads
the rest, ORM included.
"""

from __future__ import annotations

from panelgate.core.package_on_demand import stand_in

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


def without_the_orm() -> None:
    """Make `sqlalchemy.ext.asyncio` importable without the ORM (once; later calls do nothing)."""
    stand_in(PACKAGE, _PARTS)
