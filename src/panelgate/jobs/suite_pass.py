"""`suite-pass`: a few review-suite tasks a night, so every model's record fills in and stays current.

A handful per run (`suite.desk.PER_PASS`), not the whole suite: the calls
come out of the same free-tier limits as people's panels. Unanswered tasks
and saved rate-limit failures go first, then the oldest answers. Ad hoc
models are left out (they are asked only when named). Off with the
scheduler, like every job (a fresh install spends nothing).
"""

from __future__ import annotations

from datetime import time

from panelgate.jobs.job import CALLER, Job, JobContext
from panelgate.jobs.schedule import Daily


async def run(context: JobContext) -> str:
    if context.suite is None:
        return "no review suite in this process: nothing asked"
    return await context.suite.desk().scheduled_pass(caller=CALLER)


JOB = Job(
    "suite-pass",
    "a few review-suite tasks: unanswered and rate-limited ones first, then the oldest answers",
    Daily(time(3, 0)),
    run,
)
