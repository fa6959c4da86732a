"""The action-needed list as a person sees it: open alerts, less what stopped being true since.

Alerts are synced by auto-retire once a day; a model restored in between
(or retired more than a week ago) should not wait for the next run to
leave the list, so those are dropped as it is read.
"""

from __future__ import annotations

from datetime import datetime

from panelgate.engine.auto_retire import SHOWN_FOR
from panelgate.store import Database
from panelgate.store.alerts import AlertRecord


async def action_needed(db: Database, now: datetime) -> list[AlertRecord]:
    shown = []
    for alert in await db.alerts.open():
        if alert.kind == "retired":
            model = None if alert.restore is None else await db.models.get(alert.restore)
            if model is None or not model.retired or alert.raised_at < now - SHOWN_FOR:
                continue
        shown.append(alert)
    return shown
