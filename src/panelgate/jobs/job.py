"""What a scheduled job is: a name, a schedule, and a coroutine that does the work.

A job's `run` gets the `JobContext` (the store and the engine's desks, made
once in the app's lifespan) and returns one line saying what it did, which
the run's record keeps. Raising marks the run failed with the error's words.
A job module defines one `Job` and is listed in `registry.py`; a job that
needs something new from the engine adds it to the context.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from panelgate.catalog.desk import Catalog
from panelgate.engine.auto_retire import AutoRetirer
from panelgate.engine.health import HealthDesk
from panelgate.jobs.schedule import Schedule
from panelgate.store import Database
from panelgate.suite.on_demand import SuiteOnDemand

CALLER = "scheduler"
"""Who scheduled calls are for, in the usage ledger."""


@dataclass(frozen=True)
class JobContext:
    db: Database
    health: HealthDesk
    retirer: AutoRetirer
    catalog: Catalog | None = None
    """The catalog refresh's desk (None: the process has none, and that job reads nothing)."""
    suite: SuiteOnDemand | None = None
    """The review suite's desk (made on first use), for its scheduled passes (None: the process has none)."""


@dataclass(frozen=True)
class Job:
    name: str
    summary: str
    schedule: Schedule
    run: Callable[[JobContext], Awaitable[str]]
