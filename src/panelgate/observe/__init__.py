"""What the gateway counts for Prometheus: the per-app `Meter` the engine, upstream and http rooms
observe into, and the scrape that writes it out. Imports only the standard library and
prometheus_client, so every room on a request's path may use it."""

from panelgate.observe.exposition import CONTENT_TYPE, Prices, scrape
from panelgate.observe.meter import MULTIPROCESS_DIR, OTHER_ROUTE, Meter, count_in_files

__all__ = ["CONTENT_TYPE", "MULTIPROCESS_DIR", "OTHER_ROUTE", "Meter", "Prices", "count_in_files", "scrape"]
