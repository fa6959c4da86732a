"""Fixtures for the engine's health tests: a store, the loopback upstream, a real client, a clock."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta
from pathlib import Path

import pytest

from panelgate.core.types import CollectionInfo
from panelgate.engine.auto_retire import AutoRetirer
from panelgate.engine.health import HealthDesk
from panelgate.settings import Settings
from panelgate.store import Database
from panelgate.store.records import RateRule
from panelgate.upstream import KeyStore, UpstreamClient
from panelgate.upstream.pacing import Pacer
from tests.store.conftest import db, migrated, settings
from tests.support.upstream import FakeUpstream

__all__ = ["Clock", "Live", "db", "live", "migrated", "settings"]


class Clock:
    """A clock the test moves: `clock()` is now."""

    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> datetime:
        self.now += timedelta(**delta)
        return self.now


@dataclass
class Live:
    db: Database
    client: UpstreamClient
    clock: Clock
    health: HealthDesk
    retirer: AutoRetirer
    upstream: FakeUpstream


async def open_live(db: Database, upstream: FakeUpstream, home: Path, clock: Clock) -> Live:
    async def rules() -> tuple[RateRule, ...]:
        return (await db.bench.snapshot()).rate_rules

    client = UpstreamClient(
        Settings(home=home), KeyStore(home / "keys.json", {}), Pacer(db.rates, rules), db.usage
    )
    health = HealthDesk(db, client, now=clock)
    return Live(db, client, clock, health, AutoRetirer(db, health, client, now=clock), upstream)


@pytest.fixture
async def live(db: Database, upstream: FakeUpstream, tmp_path: Path) -> AsyncIterator[Live]:
    """Endpoint `up` on the loopback upstream listing m1–m3, in collection `core`; the clock at noon
    the day after tomorrow (so evidence written "yesterday" is after the models were added)."""
    await db.endpoints.add("up", upstream.url, actor="setup")
    for alias in ("m1", "m2", "m3"):
        await db.models.add(alias, alias, "up", actor="setup")
    await db.collections.save(CollectionInfo("core", ("m1", "m2", "m3")), actor="setup")
    upstream.listed(["m1", "m2", "m3"])
    noon = datetime.combine(datetime.now(UTC).date() + timedelta(days=2), time(12), UTC)
    found = await open_live(db, upstream, tmp_path / "client", Clock(noon))
    try:
        yield found
    finally:
        await found.client.aclose()
