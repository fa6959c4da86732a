"""Every scheduled job, in the order the admin API lists them. A new job: its module, and one line here."""

from __future__ import annotations

from panelgate.jobs import auto_retire, capability_probe, catalog_refresh, daily_probe, speed_test, suite_pass
from panelgate.jobs.job import Job

JOBS: tuple[Job, ...] = (
    daily_probe.JOB,
    speed_test.JOB,
    capability_probe.JOB,
    auto_retire.JOB,
    catalog_refresh.JOB,
    suite_pass.JOB,
)
