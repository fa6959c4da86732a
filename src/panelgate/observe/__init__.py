"""What the gateway counts for Prometheus: the per-app `Meter` the engine, upstream and http rooms
observe into, and the scrape that writes it out. Imports only the standard library, prometheus_client
and `core.package_on_demand`, so every room on a request's path may use it.

prometheus_client's package file loads its whole exposition side (an HTTP server, urllib's client,
WSGI, about 0.9 MiB a process keeps) where counting needs only its metrics and registry. So the package
stands in with those two (`core/package_on_demand.py`), and the scrape (`exposition`, which loads the
rest) is imported with the first `GET /metrics`.
"""

from typing import TYPE_CHECKING

from panelgate.core.package_on_demand import exports_on_demand, stand_in

stand_in("prometheus_client", {"metrics": ("Counter", "Histogram"), "registry": ("CollectorRegistry",)})

if TYPE_CHECKING:
    from panelgate.observe.exposition import CONTENT_TYPE, Prices, scrape
    from panelgate.observe.meter import MULTIPROCESS_DIR, OTHER_ROUTE, Meter, count_in_files

__getattr__ = exports_on_demand(
    __name__,
    {
        **dict.fromkeys(("CONTENT_TYPE", "Prices", "scrape"), "exposition"),
        **dict.fromkeys(("MULTIPROCESS_DIR", "OTHER_ROUTE", "Meter", "count_in_files"), "meter"),
    },
)

__all__ = ["CONTENT_TYPE", "MULTIPROCESS_DIR", "OTHER_ROUTE", "Meter", "Prices", "count_in_files", "scrape"]
