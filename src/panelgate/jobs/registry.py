"""Every scheduled job, in the order the admin API lists them. A new job: its module, and one line here."""

from __future__ import annotations

from panelgate.jobs import auto_retire, capability_probe, daily_probe, speed_test
from panelgate.jobs.job import Job

JOBS: tuple[Job, ...] = (
    daily_probe.JOB,
    speed_test.JOB,
    capability_probe.JOB,
    auto_retire.JOB,
)
