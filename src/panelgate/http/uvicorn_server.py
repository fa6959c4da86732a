"""uvicorn's server, without the command line its package loads beside it.

uvicorn's package file imports `uvicorn.main`, its command line, and with it
Click: about 2.8 MiB that a gateway process would keep for as long as it
runs, though it only needs the server. `without_its_command_line()`
registers the package with its config and server modules only
(`core/package_on_demand.py`); the server is then run as
`uvicorn.Server(uvicorn.Config(app, ...)).run()`. Asking the package for
anything else (`uvicorn.run`) loads the rest, Click included.
"""

from __future__ import annotations

from panelgate.core.package_on_demand import stand_in

PACKAGE = "uvicorn"
_PARTS = {"config": ("Config",), "server": ("Server",)}
"""The modules the server needs, and the names the package gives from each (uvicorn's lifespan
modules import `Config` from the package itself)."""


def without_its_command_line() -> None:
    """Make `uvicorn` importable without `uvicorn.main` (once; later calls do nothing)."""
    stand_in(PACKAGE, _PARTS)
