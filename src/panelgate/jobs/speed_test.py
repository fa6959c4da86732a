"""`speed-test`: a short and a long prompt, a few runs each, for every model seated automatically."""

from __future__ import annotations

from datetime import time

from panelgate.jobs.job import CALLER, Job, JobContext
from panelgate.jobs.schedule import Weekly


async def run(context: JobContext) -> str:
    health = context.health
    models = await health.probed_models(ad_hoc=False)
    found = await health.probe_round(models, lambda model: health.speed_test(model, caller=CALLER))
    return found.summary("speed-tested")


JOB = Job(
    "speed-test",
    "seconds (median, 95th percentile), characters and tokens a second, short and long prompt",
    Weekly(0, time(7, 0)),
    run,
)
