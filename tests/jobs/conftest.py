"""Fixtures for the scheduler's tests: the engine's live bench, and a scheduler on a clock the test moves."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from panelgate.jobs.job import Job, JobContext
from panelgate.jobs.registry import JOBS
from panelgate.jobs.runner import Scheduler
from tests.engine.conftest import Live, db, live, migrated, settings

__all__ = ["Live", "db", "live", "make_scheduler", "migrated", "settings"]

MakeScheduler = Callable[..., Scheduler]


@pytest.fixture
def make_scheduler(live: Live) -> MakeScheduler:
    """A scheduler on `live`'s store, clock and upstream (`jobs`: the real ones unless given)."""

    def make(
        holder: str = "a", jobs: tuple[Job, ...] = JOBS, live_: Live = live, **options: Any
    ) -> Scheduler:
        context = JobContext(live_.db, live_.health, live_.retirer)
        return Scheduler(live_.db, jobs, context, now=live_.clock, holder=holder, **options)

    return make
