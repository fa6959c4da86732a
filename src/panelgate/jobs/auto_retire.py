"""`auto-retire`: retire models on evidence (SPEC §8) and keep the action-needed list current."""

from __future__ import annotations

from datetime import time

from panelgate.jobs.job import Job, JobContext
from panelgate.jobs.schedule import Daily


async def run(context: JobContext) -> str:
    return (await context.retirer.run()).summary()


JOB = Job(
    "auto-retire",
    "retire models that stopped answering (confirmed, or for 3 days); raise what needs a person",
    Daily(time(8, 0)),
    run,
)
