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
disagree. All of it is read by `http/dashboard/home.py`; this module renders it.
"""

from __future__ import annotations

from collections import Counter

from fastapi import APIRouter, Request
from starlette.responses import HTMLResponse

from panelgate.core.health import Health
from panelgate.http.dashboard.home import RosterLine, read_glance
from panelgate.http.services import services
from panelgate.web.estimate_svg import percent
from panelgate.web.frame import render

router = APIRouter(include_in_schema=False)


def status_counts(roster: list[RosterLine]) -> list[tuple[Health, int]]:
    """How many models show each chip, the commonest first (each with one of its chips to draw)."""
    checked = [line.health.health for line in roster if line.health is not None]
    counts = Counter(health.label for health in checked)
    chips = {health.label: health for health in checked}
    return [(chips[label], count) for label, count in counts.most_common()]


@router.api_route("/", methods=["GET", "HEAD"])  # HEAD: clients probe the server with it (Claude Code)
async def at_a_glance(request: Request) -> HTMLResponse:
    glance = await read_glance(services(request))
    return await render(
        request,
        "glance",
        alerts=glance.alerts,
        roster=glance.roster,
        counts=status_counts(glance.roster),
        scheduler_mode=glance.scheduler_mode,
        panels_today=glance.panels_today,
        owed=glance.owed,
        leaders=glance.leaders,
        percent=percent,
    )
