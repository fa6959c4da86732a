"""The ASGI app: one port for the gateway, the bench routes and the admin API.

Resources (database, upstream pool, panel runner) are made in the lifespan
and dropped with it; on shutdown running panels get time to finish and be
recorded before the database closes.
"""

from __future__ import annotations

import os
import random
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta
from typing import Any

from fastapi import FastAPI
from starlette.staticfiles import StaticFiles

from panelgate import __version__
from panelgate.catalog.desk import Catalog
from panelgate.connect import ConnectDesk, ProviderCalls, ProviderFileError, Renewer, load_providers
from panelgate.engine.auto_retire import AutoRetirer
from panelgate.engine.entry import Entry
from panelgate.engine.health import HealthDesk
from panelgate.engine.onboarding import OnboardingQueue
from panelgate.engine.panel import PanelRunner
from panelgate.engine.panel_ids import PanelIdIssuer
from panelgate.engine.process_slot import SLOTS, ProcessSlot
from panelgate.engine.record_book import RecordBook
from panelgate.engine.route import RouteRunner, RouteSettings
from panelgate.http import (
    anthropic_routes,
    api_docs,
    bench,
    completions_routes,
    connect_callback,
    errors,
    gemini_routes,
    health,
    login_routes,
    mcp_route,
    metrics_route,
    ollama_routes,
    openai_chat_routes,
    responses_routes,
)
from panelgate.http.access.access_log import AccessLog
from panelgate.http.access.guard import AccessGuard
from panelgate.http.access.key_spend import KeySpendWatch
from panelgate.http.access.policy import AccessPolicy
from panelgate.http.access.throttle import LoginThrottle
from panelgate.http.gateway_front import GatewayFront
from panelgate.http.gateway_openapi import describe_gateway
from panelgate.http.gateway_table import GatewayTable
from panelgate.http.mcp_on_demand import McpOnDemand
from panelgate.http.path_aliases import PathAliases
from panelgate.http.request_meter import RequestMeter
from panelgate.http.routes_on_demand import RoutesOnDemand
from panelgate.http.services import Services
from panelgate.hubs import RefusedKeys
from panelgate.jobs.job import JobContext
from panelgate.jobs.registry import JOBS
from panelgate.jobs.runner import Scheduler
from panelgate.jobs.signin_renewal import RenewalLoop
from panelgate.observe import MULTIPROCESS_DIR, Meter
from panelgate.settings import Settings
from panelgate.store import Database, EndpointRecord
from panelgate.store.records import RateRule
from panelgate.suite.on_demand import SuiteOnDemand
from panelgate.suite.onboarding_step import onboarding_suite
from panelgate.upstream import KeyStore, UpstreamClient
from panelgate.upstream.pacing import Pacer
from panelgate.web.frame import STATIC_DIR

SHUTDOWN_GRACE_S = 30.0
GATEWAY = GatewayTable(
    (
        openai_chat_routes.API,
        anthropic_routes.API,
        ollama_routes.API,
        gemini_routes.API,
        responses_routes.API,
        completions_routes.API,
        mcp_route.API,
    )
)
"""The model APIs (see `gateway_table`); a new API adds its module's `API` here."""


class CannotStart(Exception):
    """The settings name something the gateway cannot use (a providers file it cannot read); the
    message says what, for `serve` to print."""


def app_from_environment() -> AccessLog:
    """The app of one worker process of `panelgate serve --workers N` (settings from `PANELGATE_*`)."""
    return create_app(Settings(), migrations_apart=True)


def create_app(settings: Settings | None = None, *, migrations_apart: bool = False) -> AccessLog:
    """The gateway's ASGI app (the admin API and the pages added on their first request:
    `http/routes_on_demand.py`). `migrations_apart` has a child process migrate a database that is
    behind, so a long-running server never imports Alembic."""
    settings = settings or Settings()
    policy = AccessPolicy.from_settings(settings)
    meter = Meter(os.environ.get(MULTIPROCESS_DIR) or None)  # the supervisor of --workers sets it
    try:
        providers = load_providers(settings.connect_providers)
    except ProviderFileError as exc:
        raise CannotStart(str(exc)) from None

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        db = await Database.open(settings, migrations_apart=migrations_apart)
        keys = KeyStore(settings.key_file)
        await db.endpoints.move_header_values(keys.set)  # values stored before they were secrets

        async def rate_rules() -> tuple[RateRule, ...]:
            return (await db.bench.snapshot()).rate_rules

        db.verdicts.listen(meter.verdict)
        pacer = Pacer(db.rates, rate_rules, meter=meter)
        upstream = UpstreamClient(settings, keys, pacer, db.usage, meter)

        async def listing(endpoint: EndpointRecord) -> list[dict[str, Any]]:
            where = endpoint.base_url
            return await upstream.list_models(
                where, key_name=endpoint.key_name, header_keys=endpoint.header_keys, endpoint=endpoint.name
            )

        catalog = Catalog(db, settings.data_dir / "catalog", listing)
        catalog.attach()  # facts merged into every roster read; smaller windows learned from refusals
        slot = ProcessSlot(settings.data_dir / "slots")
        ids = PanelIdIssuer(slot.take(), SLOTS)
        book = RecordBook(db)
        runner = PanelRunner(
            db,
            upstream,
            keepalive_s=settings.keepalive_s,
            ids=ids,
            book=book,
            rng=random.Random(settings.seating_seed),
            meter=meter,
        )
        routes = RouteRunner(
            db,
            upstream,
            RouteSettings(keepalive_s=settings.keepalive_s, first_token_s=settings.route_first_token_s),
            book=book,
            meter=meter,
        )
        entry = Entry(db, runner, routes)
        mcp = McpOnDemand(db, entry)  # the MCP SDK is imported by the first /mcp request, not here
        # Health probes and the scheduler: every process has a runner; the one holding the lease runs jobs.
        health_desk = HealthDesk(db, upstream)
        retirer = AutoRetirer(db, health_desk, upstream)
        suite = SuiteOnDemand(db, upstream, settings.data_dir)  # the suite is imported by its first run
        scheduler = Scheduler(db, JOBS, JobContext(db, health_desk, retirer, catalog, suite))
        # Onboarding works its queue in every scheduler mode (a person asked for it); one process at a time.
        onboarding = OnboardingQueue(db, upstream, holder=scheduler.holder, run_suite=onboarding_suite(suite))
        # Sign-ins: every process finishes them and looks for tokens to renew; each renewal is claimed once.
        calls = ProviderCalls()
        every = settings.connect_renew_check_s
        renewer = Renewer(
            db, keys, providers, calls, holder=scheduler.holder, retry_after=timedelta(seconds=2 * every)
        )
        renewal = RenewalLoop(renewer, every)
        key_spend = KeySpendWatch(db, catalog.prices)  # read by the access guard, which budgets keys
        app.state.services = Services(
            settings=settings,
            db=db,
            keys=keys,
            upstream=upstream,
            panels=runner,
            routes=routes,
            entry=entry,
            mcp=mcp,
            health=health_desk,
            scheduler=scheduler,
            onboarding=onboarding,
            catalog=catalog,
            meter=meter,
            connect=ConnectDesk(db, keys, providers, calls),
            hub_refusals=RefusedKeys(db.hub_refusals),
            key_spend=key_spend,
        )
        try:
            async with scheduler.running(), onboarding.running(), renewal.running():
                yield
        finally:  # the database and the slot are let go even when a step before them fails
            try:
                await mcp.aclose()
                await runner.drain(SHUTDOWN_GRACE_S)
                await routes.drain(SHUTDOWN_GRACE_S)
                await upstream.aclose()
                await catalog.settled()
                await key_spend.aclose()
            finally:
                try:
                    await db.close()
                finally:
                    slot.release()

    app = FastAPI(title="panelgate", version=__version__, lifespan=lifespan, docs_url=None, redoc_url=None)
    app.state.gateway = GATEWAY
    throttle = LoginThrottle(policy.login_per_minute, policy.login_overall_per_minute)
    app.state.login = login_routes.LoginDesk(policy, throttle)
    errors.install(app)
    routers = (
        health.router,
        login_routes.router,
        bench.router,
        metrics_route.router,
        connect_callback.router,
    )
    for router in routers:
        app.include_router(router)
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    api_docs.install(app)  # /docs with its assets from this server, not a CDN (no /redoc)
    describe_gateway(app, GATEWAY)
    guarded = AccessGuard(GatewayFront(app, GATEWAY, rest=RoutesOnDemand(app)), policy, app.state)
    return AccessLog(PathAliases(RequestMeter(guarded, meter)))
