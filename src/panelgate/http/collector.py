"""How a server process runs Python's cyclic garbage collector: seldom, and never over what its start built.

With Python's defaults (a young collection after every 700 new objects, a
full one after about a hundred of those) the collector took a tenth to a
fifth of a server's CPU under route load at c=64, and each full
collection, which walks every object the process holds (about 100,000 from
the imports and the app: modules, functions, routes, schemas), held the
event loop for about 100 ms (docs/benchmarks.md, "The garbage collector"). Those objects live as long as
the process; what a request allocates is nearly all freed by reference
counting when the request ends, and the collector is there for the few
cycles counting cannot free (an exception and its traceback, a finished
task).

So a server process moves what its start built out of the collector's sight
(`gc.freeze`: the supervisor of `--workers` does it before forking, which
also keeps the workers' shared pages from being written to) and collects
its young objects after `YOUNG_OBJECTS` new ones rather than 700: a young
collection then finds most of a request's objects already freed instead of
promoting those of the requests in flight to an older generation, which is
what made the full collections frequent. Tests build apps without either,
so their many gateways in one process are collected as Python's defaults
collect them.
"""

from __future__ import annotations

import gc

YOUNG_OBJECTS = 10_000
"""New container objects (net of those freed) between two young collections."""


def collect_seldom() -> None:
    """Young collections after `YOUNG_OBJECTS` new objects; the older generations' ratios unchanged."""
    _, older, oldest = gc.get_threshold()
    gc.set_threshold(YOUNG_OBJECTS, older, oldest)


def freeze_start() -> None:
    """Move every object alive now out of the collector's sight for good (after freeing what is garbage)."""
    gc.collect()
    gc.freeze()
