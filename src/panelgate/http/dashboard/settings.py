"""What the Settings page reads: the gateway keys, the collections a key may be limited to, and the
scheduler with which gateway process runs its jobs.

A gateway key leaves here as its record, which holds only the key's hint.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from panelgate.http.access.budgets import KeySpent
from panelgate.http.services import Services
from panelgate.jobs.runner import SchedulerView
from panelgate.store.gateway_keys import GatewayKeyRecord


@dataclass(frozen=True)
class SettingsView:
    keys: list[GatewayKeyRecord]
    spent: dict[int, KeySpent]
    """What each active key with a budget spent this UTC day and month (by key id)."""
    collections: list[str]
    scheduler: SchedulerView
    runner: str
    """Which gateway process runs the jobs, in words."""


def runner_words(view: SchedulerView) -> str:
    """Which gateway process runs the jobs, in words (one holds a lease in the database at a time)."""
    lease = view.lease
    if lease is None or lease.expires_at <= datetime.now(UTC):
        if view.state.mode == "off":
            return "No process runs jobs while the scheduler is off."
        return "No gateway process holds the scheduler right now; one takes it on its next tick (every 30 s)."
    if lease.holder == view.holder:
        return f"This gateway process runs the jobs ({lease.holder})."
    return f"Another gateway process runs the jobs ({lease.holder})."


async def read_settings(services: Services) -> SettingsView:
    scheduler = await services.scheduler.view()
    keys = await services.db.keys.list()
    budgeted = [key for key in keys if key.budgets.any and not key.revoked]
    return SettingsView(
        keys=keys,
        spent={key.id: await services.key_spend.spent(key) for key in budgeted},
        collections=[c.name for c in await services.db.collections.list()],
        scheduler=scheduler,
        runner=runner_words(scheduler),
    )
