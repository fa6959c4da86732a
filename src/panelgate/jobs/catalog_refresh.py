"""`catalog-refresh`: read the public catalogs and each endpoint's listing; hold models that turned paid.

Daily, before the working day: a free model that starts charging is held
before anyone's panel calls it. Off with the scheduler (a fresh install
fetches nothing).
"""

from __future__ import annotations

from datetime import time

from panelgate.jobs.job import Job, JobContext
from panelgate.jobs.schedule import Daily


async def run(context: JobContext) -> str:
    if context.catalog is None:
        return "no catalog in this process: nothing read"
    return (await context.catalog.refresh()).summary()


JOB = Job(
    "catalog-refresh",
    "read models.dev, OpenRouter's list and each endpoint's listing; hold free models that turned paid",
    Daily(time(6, 0)),
    run,
)
