"""`capability-probe`: does each model call a tool when one is offered, and get a small sum right."""

from __future__ import annotations

from datetime import time

from panelgate.jobs.job import CALLER, Job, JobContext
from panelgate.jobs.schedule import Weekly


async def run(context: JobContext) -> str:
    health = context.health
    models = await health.probed_models(ad_hoc=False)
    found = await health.probe_round(models, lambda model: health.capabilities(model, caller=CALLER))
    return found.summary("capability-probed")


JOB = Job("capability-probe", "a tool call and a reasoning check per model", Weekly(6, time(7, 0)), run)
