"""`/`, At a glance: today in three numbers, what needs a person's hand, then every model on the bench
with its health chip.

The strip on top says whether the gateway is used (panels since midnight,
UTC), whether the record is being fed (answers still owed a verdict, the
ones the Judge view goes through) and whom the record trusts (the model with
the best posterior mean on each shape, as the Record page ranks them).

The action-needed list is what will not fix itself (a key refused, a whole
connection down, payment asked for, a model retired automatically), read
as `GET /api/alerts` reads it; dismissing and restoring go through the
admin API. Each model's status is the one `GET /api/health` gives, from the
same evidence auto-retire acts on, so the chip and the retirement never
disagree.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime, time

from fastapi import APIRouter, Request
from starlette.responses import HTMLResponse

from panelgate.core.health import Health
from panelgate.engine.action_needed import action_needed
from panelgate.engine.health import ModelHealth
from panelgate.engine.standings import read_standings
from panelgate.http.services import Services
from panelgate.store.alerts import AlertRecord
from panelgate.store.panel_counts import answers_owed, panels_since
from panelgate.store.records import ModelRecord
from panelgate.web.estimate_svg import percent
from panelgate.web.frame import render

router = APIRouter(include_in_schema=False)
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


def alert_line(alert: AlertRecord) -> AlertLine:
    about_model = alert.kind in ABOUT_A_MODEL
    return AlertLine(
        alert,
        ALERT_WORDS.get(alert.kind, alert.kind),
        alert.subject if about_model else None,
        None if about_model else alert.subject,
    )


def status_counts(roster: list[RosterLine]) -> list[tuple[Health, int]]:
    """How many models show each chip, the commonest first (each with one of its chips to draw)."""
    checked = [line.health.health for line in roster if line.health is not None]
    counts = Counter(health.label for health in checked)
    chips = {health.label: health for health in checked}
    return [(chips[label], count) for label, count in counts.most_common()]


@router.api_route("/", methods=["GET", "HEAD"])  # HEAD: clients probe the server with it (Claude Code)
async def at_a_glance(request: Request) -> HTMLResponse:
    services: Services = request.app.state.services
    now = datetime.now(UTC)
    alerts = await action_needed(services.db, now)
    leaders = [
        Leader(shape, rows[0]["alias"], rows[0]["mean"])
        for shape, rows in (await read_standings(services.db, None, None)).items()
        if rows
    ]
    health = {found.alias: found for found in await services.health.report()}
    roster = [RosterLine(m, health.get(m.alias)) for m in await services.db.models.list()]
    scheduler = await services.scheduler.view()
    return await render(
        request,
        "glance",
        alerts=[alert_line(alert) for alert in alerts],
        roster=roster,
        counts=status_counts(roster),
        scheduler_mode=scheduler.state.mode,
        panels_today=await panels_since(services.db, datetime.combine(now.date(), time(), UTC)),
        owed=await answers_owed(services.db),
        leaders=leaders,
        percent=percent,
    )
