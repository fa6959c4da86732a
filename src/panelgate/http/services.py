"""The resources one gateway process holds, made in the app's lifespan.

Handlers reach them through `services(request)`; nothing request-facing lives
at module level, so tests and several apps in one process never share state.
"""

from __future__ import annotations

from dataclasses import dataclass

from starlette.requests import Request

from panelgate.catalog.desk import Catalog
from panelgate.connect import ConnectDesk
from panelgate.engine.entry import Entry
from panelgate.engine.health import HealthDesk
from panelgate.engine.onboarding import OnboardingQueue
from panelgate.engine.panel import PanelRunner
from panelgate.engine.route import RouteRunner
from panelgate.http.access.key_spend import KeySpendWatch
from panelgate.http.mcp_on_demand import McpOnDemand
from panelgate.hubs import RefusedKeys
from panelgate.jobs.runner import Scheduler
from panelgate.observe import Meter
from panelgate.settings import Settings
from panelgate.store import Database
from panelgate.upstream import KeyStore, UpstreamClient


@dataclass(frozen=True)
class Services:
    settings: Settings
    db: Database
    keys: KeyStore
    upstream: UpstreamClient
    panels: PanelRunner
    routes: RouteRunner
    entry: Entry
    """The one way a request starts a panel or a route turn (its scope checked there)."""
    mcp: McpOnDemand
    health: HealthDesk
    scheduler: Scheduler
    onboarding: OnboardingQueue
    catalog: Catalog
    """Public catalogs and each model's facts (the catalog room's desk)."""
    meter: Meter
    """What `/metrics` shows, counted by this app's parts."""
    connect: ConnectDesk
    """Sign-ins to providers: started and followed by the admin API, finished by `/connect/callback`."""
    hub_refusals: RefusedKeys
    """The hubs' admin keys that were refused, never sent again by this process."""
    key_spend: KeySpendWatch
    """What each gateway key with a budget spent today and this month, re-read every few seconds."""


def services(request: Request) -> Services:
    found: Services = request.app.state.services
    return found
