"""What `/`, At a glance, shows: today's counts, what needs a person's hand, and the bench's health.

The action-needed list is read as `GET /api/alerts` reads it, each model's
health as `GET /api/health` gives it (the evidence auto-retire acts on) and
the leaders as the Record page ranks them, so this page never disagrees
with those.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, time

from panelgate.engine.action_needed import action_needed
from panelgate.engine.health import ModelHealth
from panelgate.engine.standings import read_standings
from panelgate.http.services import Services
from panelgate.store.alerts import AlertRecord
from panelgate.store.panel_counts import answers_owed, panels_since
from panelgate.store.records import ModelRecord

ALERT_WORDS = {
    "connection": "connection down",
    "signin": "sign in again",
    "paywalled": "payment asked",
    "retired": "retired automatically",
    "paid": "turned paid",
}
ABOUT_A_MODEL = frozenset({"retired", "paywalled", "paid"})


@dataclass(frozen=True)
class AlertLine:
    """An alert with where a person goes to act on it."""

    alert: AlertRecord
    words: str
    model: str | None
    """The alias to open on Models (alerts about a model)."""
    endpoint: str | None
    """The endpoint to open on Endpoints (alerts about a connection)."""


@dataclass(frozen=True)
class RosterLine:
    model: ModelRecord
    health: ModelHealth | None
    """None for a model health does not check (an `image` model never chats)."""


@dataclass(frozen=True)
class Leader:
    """The model the record ranks first on a shape."""

    shape: str
    alias: str
    mean: float
    judged: int
    """Verdicts behind the estimate: a lead on two verdicts is a guess, on fifty a finding."""
    suite: int
    """Review-suite results behind it too."""


@dataclass(frozen=True)
class Glance:
    alerts: list[AlertLine]
    roster: list[RosterLine]
    scheduler_mode: str
    panels_today: int
    """Panels asked since midnight, UTC."""
    owed: int
    """Answers still owed a verdict: what the Judge view goes through."""
    leaders: list[Leader]


def alert_line(alert: AlertRecord) -> AlertLine:
    about_model = alert.kind in ABOUT_A_MODEL
    return AlertLine(
        alert,
        ALERT_WORDS.get(alert.kind, alert.kind),
        alert.subject if about_model else None,
        None if about_model else alert.subject,
    )


async def read_glance(services: Services) -> Glance:
    now = datetime.now(UTC)
    alerts = await action_needed(services.db, now)
    leaders = [
        Leader(shape, rows[0]["alias"], rows[0]["mean"], rows[0]["judged"], rows[0]["suite"])
        for shape, rows in (await read_standings(services.db, None, None)).items()
        if rows
    ]
    health = {found.alias: found for found in await services.health.report()}
    roster = [RosterLine(m, health.get(m.alias)) for m in await services.db.models.list()]
    scheduler = await services.scheduler.view()
    return Glance(
        alerts=[alert_line(alert) for alert in alerts],
        roster=roster,
        scheduler_mode=scheduler.state.mode,
        panels_today=await panels_since(services.db, datetime.combine(now.date(), time(), UTC)),
        owed=await answers_owed(services.db),
        leaders=leaders,
    )
