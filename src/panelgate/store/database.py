"""The store's front door: open the database, migrate it, hand out repositories.

`Database.open(settings)` is called once in the app's lifespan; the
repositories it exposes share one engine and hold no other state, so any
number of gateway processes can open the same PostgreSQL database.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlalchemy.ext.asyncio import AsyncEngine

from panelgate.settings import Settings
from panelgate.store.alerts import Alerts
from panelgate.store.audit import AuditLog
from panelgate.store.bench_view import BenchView
from panelgate.store.catalog_book import CatalogBook
from panelgate.store.collections import Collections
from panelgate.store.config_io import ConfigIO
from panelgate.store.config_stamp import Stamps
from panelgate.store.connections import Connections, make_engine
from panelgate.store.endpoints import Endpoints
from panelgate.store.fact_book import FactBook
from panelgate.store.gateway import Gateway
from panelgate.store.gateway_keys import GatewayKeys
from panelgate.store.health_book import HealthBook
from panelgate.store.hub_refusals import HubRefusals
from panelgate.store.migrate import sqlite_setup_lock, upgrade_to_head
from panelgate.store.migrate_apart import upgrade_apart_if_behind
from panelgate.store.models import Models
from panelgate.store.onboarding_book import OnboardingBook
from panelgate.store.panels import Panels
from panelgate.store.rate_book import RateBook
from panelgate.store.routes import Routes
from panelgate.store.scheduler_book import SchedulerBook
from panelgate.store.shared.state import connect_redis, shared_state
from panelgate.store.signin_grants import SigninGrants
from panelgate.store.signins import Signins
from panelgate.store.suite_book import SuiteBook
from panelgate.store.usage_book import UsageBook

if TYPE_CHECKING:  # redis-py is loaded only when Redis is configured
    from panelgate.store.shared.change_notices import ChangeNotices
    from panelgate.store.shared.redis_link import RedisLink
from panelgate.store.verdicts import Verdicts


class Database:
    """One engine and a repository per job: endpoints, models, collections, gateway,
    gateway keys, panels, verdicts, audit, config, rates, usage, scheduler, health, alerts; `bench` is the
    cached view every panel reads."""

    def __init__(
        self,
        engine: AsyncEngine,
        *,
        stamps: Stamps | None = None,
        redis: RedisLink | None = None,
        notices: ChangeNotices | None = None,
    ) -> None:
        """`stamps`: shared by the worker processes of one server, so an edit or a verdict through one
        shows on all; `notices`: the same across servers sharing one Redis (a cluster's replicas)."""
        self.engine = engine
        self._notices = notices
        self._connections = connections = Connections(engine, stamps=stamps, notices=notices)
        self.shared = shared_state(connections, redis)
        """Rate counts, key minutes and route stickiness: in this database, or in Redis (`store.shared`)."""
        self.endpoints = Endpoints(connections)
        self.models = Models(connections)
        self.collections = Collections(connections)
        self.gateway = Gateway(connections)
        self.keys = GatewayKeys(connections)
        self.key_minutes = self.shared.key_minutes
        self.panels = Panels(connections)
        self.routes = Routes(connections, self.shared.sticky)
        self.verdicts = Verdicts(connections)
        self.audit = AuditLog(connections)
        self.config = ConfigIO(connections)
        self.rates = RateBook(connections, self.shared.rates)
        self.usage = UsageBook(connections)
        self.scheduler = SchedulerBook(connections)
        self.health = HealthBook(connections, self.usage)
        self.alerts = Alerts(connections)
        self.catalog = CatalogBook(connections)
        """The public catalogs' entries (models.dev, OpenRouter) and where they are fetched from."""
        self.facts = FactBook(connections)
        """Each model's listing and learned facts, the person's overrides, and paid holds."""
        self.onboarding = OnboardingBook(connections)
        self.signins = Signins(connections)
        self.grants = SigninGrants(connections)
        self.hub_refusals = HubRefusals(connections)
        """Sign-ins under way, and what keeps each signed-in endpoint signed in (never a token)."""
        self.suite = SuiteBook(connections, on_added=self.verdicts.forget_evidence_counts)
        """The review suite's answers and their scores (each one evidence on the record, as verdicts are)."""
        self.bench = BenchView(
            connections,
            endpoints=self.endpoints,
            models=self.models,
            collections=self.collections,
            gateway=self.gateway,
            rates=self.rates,
        )

    @classmethod
    async def open(cls, settings: Settings, *, migrations_apart: bool = False) -> Database:
        """Make the data folder, connect, and migrate the schema to the newest revision (in a child
        process with `migrations_apart`, as a long-running server does: `store/migrate_apart.py`)."""
        settings.ensure_data_dir()
        engine = make_engine(settings.sqlalchemy_url)
        redis: RedisLink | None = None
        notices: ChangeNotices | None = None
        try:
            if migrations_apart:
                await upgrade_apart_if_behind(Connections(engine), settings.sqlalchemy_url)
            await upgrade_to_head(Connections(engine), sqlite_setup_lock(settings.sqlalchemy_url))
            redis = await connect_redis(settings)
            if redis is not None:
                from panelgate.store.shared.change_notices import ChangeNotices

                notices = ChangeNotices(redis)
                await notices.start()
        except BaseException:
            if notices is not None:
                await notices.close()
            if redis is not None:
                await redis.close()
            await engine.dispose()
            raise
        # Worker processes of one server share stamps in the data folder, and servers sharing a
        # Redis hear each other's notices, so an edit or a verdict through one shows at once on all;
        # separate servers on the database alone see it within a second (see `BenchView`).
        stamps = Stamps(settings.data_dir) if settings.workers > 1 else None
        return cls(engine, stamps=stamps, redis=redis, notices=notices)

    async def close(self) -> None:
        """Write what is pending and let go of every connection, even when the last write fails."""
        try:
            await self.usage.close()
        finally:
            try:
                if self._notices is not None:
                    await self._notices.close()
                await self.shared.close()
                await self._connections.close()
            finally:
                await self.engine.dispose()
