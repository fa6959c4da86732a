"""`daily-probe`: one one-word call to every model on the bench, so silence is noticed within a day."""

from __future__ import annotations

from datetime import time

from panelgate.jobs.job import CALLER, Job, JobContext
from panelgate.jobs.schedule import Daily


async def run(context: JobContext) -> str:
    health = context.health
    models = await health.probed_models(ad_hoc=True)
    found = await health.probe_round(models, lambda model: health.probe(model, caller=CALLER))
    return found.summary("probed")


JOB = Job("daily-probe", "a one-word reply from every model on the bench", Daily(time(5, 0)), run)
