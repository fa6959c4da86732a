"""The database tables, as SQLAlchemy Core metadata, one module per job, and the time type they share.

This is the shape the repositories query; the Alembic migrations under
`migrations/versions/` create the same shape (a test compares the two, so a
change here without a migration fails). Times are stored as UTC and always
read back timezone-aware, on SQLite as well as PostgreSQL.
"""

from __future__ import annotations

from panelgate.store.tables.bench import (
    alias_history,
    audit_log,
    collections,
    config_version,
    endpoints,
    gateway_keys,
    gateway_settings,
    models,
)
from panelgate.store.tables.catalog import (
    catalog_entries,
    catalog_seen,
    catalog_sources,
    model_facts,
    paid_holds,
)
from panelgate.store.tables.columns import UtcDateTime, json_column, metadata, utcnow
from panelgate.store.tables.connect import signin_grants, signins
from panelgate.store.tables.health import (
    alerts,
    listing_checks,
    probes,
    scheduler_lease,
    scheduler_runs,
    scheduler_settings,
)
from panelgate.store.tables.hubs import hub_refusals
from panelgate.store.tables.onboarding import onboarding_dismissed, onboarding_items, onboarding_lease
from panelgate.store.tables.pacing import key_minutes, rate_rules, rate_stated, rate_usage, usage_ledger
from panelgate.store.tables.record import (
    evidence,
    panels,
    route_conversations,
    route_turns,
    seats,
    verdict_better_than,
    verdicts,
)
from panelgate.store.tables.suite import suite_answers
from panelgate.store.tables.tallies import verdict_days, verdict_tallies

__all__ = [
    "UtcDateTime",
    "alerts",
    "alias_history",
    "audit_log",
    "catalog_entries",
    "catalog_seen",
    "catalog_sources",
    "collections",
    "config_version",
    "endpoints",
    "evidence",
    "gateway_keys",
    "gateway_settings",
    "hub_refusals",
    "json_column",
    "key_minutes",
    "listing_checks",
    "metadata",
    "model_facts",
    "models",
    "onboarding_dismissed",
    "onboarding_items",
    "onboarding_lease",
    "paid_holds",
    "panels",
    "probes",
    "rate_rules",
    "rate_stated",
    "rate_usage",
    "route_conversations",
    "route_turns",
    "scheduler_lease",
    "scheduler_runs",
    "scheduler_settings",
    "seats",
    "signin_grants",
    "signins",
    "suite_answers",
    "usage_ledger",
    "utcnow",
    "verdict_better_than",
    "verdict_days",
    "verdict_tallies",
    "verdicts",
]
