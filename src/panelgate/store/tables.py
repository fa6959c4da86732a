"""The database tables, as SQLAlchemy Core metadata, and the time type they share.

This is the shape the repositories query; the Alembic migrations under
`migrations/versions/` create the same shape (a test compares the two, so a
change here without a migration fails). Times are stored as UTC and always
read back timezone-aware, on SQLite as well as PostgreSQL.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    Column,
    DateTime,
    Dialect,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    Table,
    Text,
    func,
    text,
)
from sqlalchemy.types import TypeDecorator

NAMING = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

metadata = MetaData(naming_convention=NAMING)


def utcnow() -> datetime:
    return datetime.now(UTC)


class UtcDateTime(TypeDecorator[datetime]):
    """A timezone-aware UTC datetime on every database.

    SQLite keeps no zone, so values are converted to UTC before they are
    written and marked UTC when read; PostgreSQL keeps `timestamptz`.
    A naive datetime is refused: it would be a guess about the zone.
    """

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("the store keeps UTC times; pass a timezone-aware datetime")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)  # type: ignore[no-any-return]
        return value.astimezone(UTC)  # type: ignore[no-any-return]


def _json(nullable: bool = False) -> JSON:
    return JSON(none_as_null=nullable)


endpoints = Table(
    "endpoints",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("name", Text, nullable=False, unique=True),
    Column("base_url", Text, nullable=False),
    Column("kind", Text, nullable=False),
    Column("api", Text, nullable=False),
    Column("key_name", Text, nullable=True),
    Column("headers", _json(), nullable=False),
    Column("is_default", Boolean, nullable=False),
    Column("created_at", UtcDateTime, nullable=False),
    Column("updated_at", UtcDateTime, nullable=False),
)
Index(
    "uq_endpoints_one_default",
    endpoints.c.is_default,
    unique=True,
    sqlite_where=text("is_default"),
    postgresql_where=text("is_default"),
)

models = Table(
    "models",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("alias", Text, nullable=False),
    Column("served_id", Text, nullable=False),
    Column("endpoint_id", Integer, ForeignKey("endpoints.id", ondelete="SET NULL"), nullable=True),
    Column("role", Text, nullable=False),
    Column("ad_hoc", Boolean, nullable=False),
    Column("context_window", Integer, nullable=True),
    Column("max_output", Integer, nullable=True),
    Column("vision", Boolean, nullable=True),
    Column("tools", Boolean, nullable=True),
    Column("options", _json(), nullable=False),
    Column("retired_at", UtcDateTime, nullable=True),
    Column("retired_by", Text, nullable=True),
    Column("retired_why", Text, nullable=False),
    Column("restore", _json(nullable=True), nullable=True),
    Column("created_at", UtcDateTime, nullable=False),
)
Index("ix_models_alias", models.c.alias)
Index(
    "uq_models_live_alias",
    func.lower(models.c.alias),
    unique=True,
    sqlite_where=text("retired_at IS NULL"),
    postgresql_where=text("retired_at IS NULL"),
)
Index(
    "uq_models_live_served",
    models.c.endpoint_id,
    models.c.served_id,
    unique=True,
    sqlite_where=text("retired_at IS NULL"),
    postgresql_where=text("retired_at IS NULL"),
)

alias_history = Table(
    "alias_history",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("model_id", Integer, ForeignKey("models.id"), nullable=False),
    Column("old_alias", Text, nullable=False),
    Column("new_alias", Text, nullable=False),
    Column("at", UtcDateTime, nullable=False),
)
Index("ix_alias_history_old_alias", func.lower(alias_history.c.old_alias))
Index("ix_alias_history_model_id", alias_history.c.model_id)

collections = Table(
    "collections",
    metadata,
    Column("name", Text, primary_key=True),
    Column("members", _json(), nullable=False),
    Column("shape", Text, nullable=True),
    Column("description", Text, nullable=False),
    Column("tags", _json(), nullable=False),
    Column("reply", Text, nullable=False),
    Column("merger", Text, nullable=False),
    Column("shadows", Integer, nullable=False, server_default=text("0")),
    Column("created_at", UtcDateTime, nullable=False),
    Column("updated_at", UtcDateTime, nullable=False),
)

gateway_settings = Table(
    "gateway_settings",
    metadata,
    Column("key", Text, primary_key=True),
    Column("value", _json(), nullable=False),
    Column("updated_at", UtcDateTime, nullable=False),
)

panels = Table(
    "panels",
    metadata,
    Column("id", Text, primary_key=True),
    Column("collection", Text, nullable=False),
    Column("at", UtcDateTime, nullable=False),
    Column("caller", Text, nullable=False),
    Column("shape", Text, nullable=False),
    Column("shape_by", Text, nullable=False),
    Column("reply", Text, nullable=False),
    Column("note", Text, nullable=False),
    Column("skipped", _json(), nullable=False),
    Column("prompt_preview", Text, nullable=False),
    Column("seats", Integer, nullable=False),
)
Index("ix_panels_at", panels.c.at)
Index("ix_panels_collection_at", panels.c.collection, panels.c.at)

seats = Table(
    "seats",
    metadata,
    Column("call", Text, primary_key=True),
    Column("panel", Text, ForeignKey("panels.id", ondelete="CASCADE"), nullable=False),
    Column("position", Integer, nullable=False),
    Column("label", Text, nullable=False),
    Column("kind", Text, nullable=False),
    Column("model_id", Integer, ForeignKey("models.id"), nullable=True),
    Column("alias", Text, nullable=False),
    Column("status", Text, nullable=False),
    Column("seconds", Float, nullable=False),
    Column("answer", Text, nullable=False),
    Column("error", Text, nullable=False),
    Column("tokens_in", Integer, nullable=True),
    Column("tokens_out", Integer, nullable=True),
)
Index("ix_seats_panel", seats.c.panel)

evidence = Table(
    "evidence",
    metadata,
    Column("call", Text, primary_key=True),
    Column("model_id", Integer, ForeignKey("models.id"), nullable=False),
    Column("source", Text, nullable=False),
    Column("collection", Text, nullable=True),
    Column("shape", Text, nullable=True),
    Column("at", UtcDateTime, nullable=False),
    Column("status", Text, nullable=False),
)
Index("ix_evidence_model_id_at", evidence.c.model_id, evidence.c.at)
Index("ix_evidence_collection", evidence.c.collection)

verdicts = Table(
    "verdicts",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("call", Text, ForeignKey("evidence.call"), nullable=False),
    Column("useful", Boolean, nullable=False),
    Column("note", Text, nullable=False),
    Column("real_claims", _json(), nullable=False),
    Column("false_claims", _json(), nullable=False),
    Column("at", UtcDateTime, nullable=False),
    Column("actor", Text, nullable=False),
)
Index("ix_verdicts_call", verdicts.c.call)

audit_log = Table(
    "audit_log",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("at", UtcDateTime, nullable=False),
    Column("actor", Text, nullable=False),
    Column("entity", Text, nullable=False),
    Column("key", Text, nullable=False),
    Column("action", Text, nullable=False),
    Column("before", _json(nullable=True), nullable=True),
    Column("after", _json(nullable=True), nullable=True),
)
Index("ix_audit_log_entity_id", audit_log.c.entity, audit_log.c.id)

route_conversations = Table(
    "route_conversations",
    metadata,
    Column("key", Text, primary_key=True),
    Column("id", Text, nullable=False, unique=True),
    Column("collection", Text, nullable=False),
    Column("caller", Text, nullable=False),
    Column("alias", Text, nullable=False),
    Column("answered_by", _json(), nullable=False),
    Column("turns", Integer, nullable=False),
    Column("started_at", UtcDateTime, nullable=False),
    Column("last_at", UtcDateTime, nullable=False),
)

route_turns = Table(
    "route_turns",
    metadata,
    Column("call", Text, primary_key=True),
    Column("conversation", Text, nullable=False),
    Column("turn", Integer, nullable=False),
    Column("at", UtcDateTime, nullable=False),
    Column("collection", Text, nullable=False),
    Column("caller", Text, nullable=False),
    Column("alias", Text, nullable=False),
    Column("status", Text, nullable=False),
    Column("seconds", Float, nullable=False),
    Column("first_token_s", Float, nullable=True),
    Column("tool_calls", Integer, nullable=False),
    Column("finish", Text, nullable=True),
    Column("tokens_in", Integer, nullable=True),
    Column("tokens_out", Integer, nullable=True),
    Column("tokens_reasoning", Integer, nullable=True),
    Column("tried", _json(), nullable=False),
    Column("error", Text, nullable=False),
    Column("purpose", Text, nullable=False),
    Column("answer", Text, nullable=False),
)
Index("ix_route_turns_conversation_turn", route_turns.c.conversation, route_turns.c.turn)
Index("ix_route_turns_at", route_turns.c.at)

gateway_keys = Table(
    "gateway_keys",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("name", Text, nullable=False),
    Column("hash", Text, nullable=False, unique=True),
    Column("hint", Text, nullable=False),
    Column("collections", _json(nullable=True), nullable=True),
    Column("rpm", Integer, nullable=True),
    Column("ad_hoc", Boolean, nullable=False, server_default=text("false")),
    Column("created_at", UtcDateTime, nullable=False),
    Column("last_used_at", UtcDateTime, nullable=True),
    Column("revoked_at", UtcDateTime, nullable=True),
)

config_version = Table(
    "config_version",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=False),
    Column("version", Integer, nullable=False),
)
"""One row counting every committed edit of the configuration: each process can tell when to re-read it."""

key_minutes = Table(
    "key_minutes",
    metadata,
    Column("key_id", Integer, primary_key=True, autoincrement=False),
    Column("minute", Integer, primary_key=True, autoincrement=False),
    Column("requests", Integer, nullable=False),
)
"""Requests per gateway key per clock minute, counted by every process (what a key's rpm holds to)."""

rate_rules = Table(
    "rate_rules",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("endpoint", Text, ForeignKey("endpoints.name", ondelete="CASCADE"), nullable=False),
    Column("served_id", Text, nullable=True),
    Column("measure", Text, nullable=False),
    Column("window", Text, nullable=False),
    Column("most", Integer, nullable=False),
)
"""Limits set by hand: at most `most` requests or tokens per minute, day or month, on a connection
(`served_id` null) or one model it serves."""
Index(
    "uq_rate_rules_scope",
    rate_rules.c.endpoint,
    func.coalesce(rate_rules.c.served_id, ""),
    rate_rules.c.measure,
    rate_rules.c.window,
    unique=True,
)

rate_usage = Table(
    "rate_usage",
    metadata,
    Column("rule_id", Integer, ForeignKey("rate_rules.id", ondelete="CASCADE"), primary_key=True),
    Column("period", Integer, primary_key=True, autoincrement=False),
    Column("used", Integer, nullable=False),
)
"""What the gateway spent under each hand-set rule in each period (minutes, days or months since the
epoch), counted by every process: the reservation that keeps a rule exact across processes."""

rate_stated = Table(
    "rate_stated",
    metadata,
    Column("endpoint", Text, primary_key=True),
    Column("served_id", Text, primary_key=True),
    Column("measure", Text, primary_key=True),
    Column("most", Integer, nullable=True),
    Column("remaining", Integer, nullable=True),
    Column("resets_at", UtcDateTime, nullable=True),
    Column("retry_at", UtcDateTime, nullable=True),
    Column("quota", Text, nullable=False),
    Column("style", Text, nullable=False),
    Column("updated_at", UtcDateTime, nullable=False),
)
"""What each provider last said about a model's limits (headers or a 429), with absolute resets."""

usage_ledger = Table(
    "usage_ledger",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("at", UtcDateTime, nullable=False),
    Column("endpoint", Text, nullable=False),
    Column("served_id", Text, nullable=False),
    Column("alias", Text, nullable=False),
    Column("caller", Text, nullable=False),
    Column("purpose", Text, nullable=False),
    Column("call", Text, nullable=True),
    Column("status", Text, nullable=False),
    Column("error_kind", Text, nullable=True),
    Column("attempts", Integer, nullable=False),
    Column("tokens_in", Integer, nullable=True),
    Column("tokens_out", Integer, nullable=True),
    Column("tokens_reasoning", Integer, nullable=True),
    Column("seconds", Float, nullable=False),
)
"""One row per upstream call (its retries counted in `attempts`): what was spent, by whom, for what."""
Index("ix_usage_ledger_at", usage_ledger.c.at)
Index("ix_usage_ledger_endpoint_at", usage_ledger.c.endpoint, usage_ledger.c.at)

scheduler_settings = Table(
    "scheduler_settings",
    metadata,
    Column("key", Text, primary_key=True),
    Column("value", _json(), nullable=False),
    Column("changed_at", UtcDateTime, nullable=False),
)
"""The scheduler's mode (`mode`) and each job's switch (`job:<name>`); a key never saved reads as its
default (mode `off`, every job on)."""

scheduler_lease = Table(
    "scheduler_lease",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=False),
    Column("holder", Text, nullable=False),
    Column("taken_at", UtcDateTime, nullable=False),
    Column("renewed_at", UtcDateTime, nullable=False),
    Column("expires_at", UtcDateTime, nullable=False),
)
"""One row (id 1): the gateway process that runs the scheduler, until its lease expires unrenewed."""

scheduler_runs = Table(
    "scheduler_runs",
    metadata,
    Column("job", Text, primary_key=True),
    Column("due_at", UtcDateTime, primary_key=True),
    Column("holder", Text, nullable=False),
    Column("mode", Text, nullable=False),
    Column("asked_by", Text, nullable=True),
    Column("started_at", UtcDateTime, nullable=False),
    Column("finished_at", UtcDateTime, nullable=True),
    Column("outcome", Text, nullable=False),
    Column("detail", Text, nullable=False),
)
"""Each due time of each job, claimed once by whichever process inserts its row first; `asked_by` names
the person who ran it by hand (its due time is then the moment they asked)."""
Index("ix_scheduler_runs_started_at", scheduler_runs.c.started_at)

probes = Table(
    "probes",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("at", UtcDateTime, nullable=False),
    Column("model_id", Integer, ForeignKey("models.id"), nullable=False),
    Column("alias", Text, nullable=False),
    Column("endpoint", Text, nullable=False),
    Column("served_id", Text, nullable=False),
    Column("probe", Text, nullable=False),
    Column("status", Text, nullable=False),
    Column("error_kind", Text, nullable=True),
    Column("error", Text, nullable=False),
    Column("seconds", Float, nullable=False),
    Column("measures", _json(), nullable=False),
    Column("caller", Text, nullable=False),
)
"""Health probes: a one-word reply, a speed test, a tool call, a reasoning check (each probe's calls are
in the usage ledger too, with purpose `probe`)."""
Index("ix_probes_model_id_at", probes.c.model_id, probes.c.at)

listing_checks = Table(
    "listing_checks",
    metadata,
    Column("endpoint", Text, primary_key=True),
    Column("served_id", Text, primary_key=True),
    Column("checked_at", UtcDateTime, nullable=False),
    Column("last_seen_at", UtcDateTime, nullable=True),
    Column("missing_since", UtcDateTime, nullable=True),
)
"""Whether each endpoint's model list still names each model on the bench, and since when it does not."""

alerts = Table(
    "alerts",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("key", Text, nullable=False),
    Column("kind", Text, nullable=False),
    Column("subject", Text, nullable=False),
    Column("message", Text, nullable=False),
    Column("restore", Text, nullable=True),
    Column("raised_at", UtcDateTime, nullable=False),
    Column("updated_at", UtcDateTime, nullable=False),
    Column("dismissed_at", UtcDateTime, nullable=True),
    Column("dismissed_by", Text, nullable=True),
    Column("cleared_at", UtcDateTime, nullable=True),
)
"""Action needed: what will not fix itself (a connection down, a key refused, payment asked, a model
retired automatically). One open alert per `key`; it is cleared when its cause is gone."""
Index(
    "uq_alerts_open_key",
    alerts.c.key,
    unique=True,
    sqlite_where=text("cleared_at IS NULL"),
    postgresql_where=text("cleared_at IS NULL"),
)

# ---- onboarding (0012) ----

onboarding_items = Table(
    "onboarding_items",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("batch", Text, nullable=False),
    Column("endpoint", Text, nullable=False),
    Column("served_id", Text, nullable=False),
    Column("alias", Text, nullable=False),
    Column("suite", Text, nullable=False),
    Column("probe_deadline_s", Float, nullable=False),
    Column("state", Text, nullable=False),
    Column("step", Text, nullable=False),
    Column("why", Text, nullable=False),
    Column("model_id", Integer, ForeignKey("models.id"), nullable=True),
    Column("steps", _json(), nullable=False),
    Column("probes", _json(), nullable=False),
    Column("starts", Integer, nullable=False),
    Column("asked_by", Text, nullable=False),
    Column("queued_at", UtcDateTime, nullable=False),
    Column("started_at", UtcDateTime, nullable=True),
    Column("updated_at", UtcDateTime, nullable=False),
    Column("finished_at", UtcDateTime, nullable=True),
)
"""The onboarding queue: one row per model being brought onto the bench (register, probe, suite), worked
one at a time in `id` order; a row stays until a person clears it after it finished."""
Index(
    "uq_onboarding_items_waiting",
    onboarding_items.c.endpoint,
    onboarding_items.c.served_id,
    unique=True,
    sqlite_where=text("finished_at IS NULL"),
    postgresql_where=text("finished_at IS NULL"),
)

onboarding_dismissed = Table(
    "onboarding_dismissed",
    metadata,
    Column("endpoint", Text, ForeignKey("endpoints.name", ondelete="CASCADE"), primary_key=True),
    Column("served_id", Text, primary_key=True),
    Column("dismissed_at", UtcDateTime, nullable=False),
    Column("dismissed_by", Text, nullable=False),
)
"""Served models a person does not want offered as onboarding candidates (until they undo it)."""

onboarding_lease = Table(
    "onboarding_lease",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=False),
    Column("holder", Text, nullable=False),
    Column("taken_at", UtcDateTime, nullable=False),
    Column("renewed_at", UtcDateTime, nullable=False),
    Column("expires_at", UtcDateTime, nullable=False),
)
"""One row (id 1): the gateway process working the onboarding queue, until its lease expires unrenewed."""

# ---- catalog (0011) ----

catalog_sources = Table(
    "catalog_sources",
    metadata,
    Column("source", Text, primary_key=True),
    Column("url", Text, nullable=False),
    Column("refreshed_at", UtcDateTime, nullable=True),
    Column("origin", Text, nullable=False),
    Column("detail", Text, nullable=False),
    Column("entries", Integer, nullable=False),
)
"""Where each public catalog is fetched from (an empty `url`: never fetched, its cached file is read) and
how its last refresh went (`origin`: fetched, cache or unavailable)."""

catalog_entries = Table(
    "catalog_entries",
    metadata,
    Column("source", Text, primary_key=True),
    Column("provider", Text, primary_key=True),
    Column("model", Text, primary_key=True),
    Column("match_key", Text, nullable=False),
    Column("api_host", Text, nullable=False),
    Column("facts", _json(), nullable=False),
)
"""Every model a public catalog lists (models.dev per provider; OpenRouter's as provider `openrouter`),
its facts read into our names, found by `match_key` (the served id's last segment, `catalog.matching`)."""
Index("ix_catalog_entries_match_key", catalog_entries.c.match_key)

model_facts = Table(
    "model_facts",
    metadata,
    Column("model_id", Integer, ForeignKey("models.id"), primary_key=True),
    Column("fact", Text, primary_key=True),
    Column("source", Text, primary_key=True),
    Column("value", _json(), nullable=False),
    Column("evidence", Text, nullable=False),
    Column("at", UtcDateTime, nullable=False),
)
"""What a model's endpoint listing said (`listing`), what an upstream's refusal taught (`learned`, only
ever tighter) and the person's overrides of facts that have no column on `models` (`override`)."""

paid_holds = Table(
    "paid_holds",
    metadata,
    Column("model_id", Integer, ForeignKey("models.id"), primary_key=True, autoincrement=False),
    Column("state", Text, nullable=False),
    Column("price", _json(), nullable=False),
    Column("source", Text, nullable=False),
    Column("since", UtcDateTime, nullable=False),
    Column("changed_by", Text, nullable=True),
)
"""Price watch: a free model that turned paid is `held` (never called) until a person `allowed` it."""

# ---- review suite (0013) ----

suite_answers = Table(
    "suite_answers",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("task_id", Text, nullable=False),
    Column("task_digest", Text, nullable=False),
    Column("shape", Text, nullable=False),
    Column("model_id", Integer, ForeignKey("models.id"), nullable=False),
    Column("alias", Text, nullable=False),
    Column("endpoint", Text, nullable=False),
    Column("served_id", Text, nullable=False),
    Column("asked_at", UtcDateTime, nullable=False),
    Column("caller", Text, nullable=False),
    Column("status", Text, nullable=False),
    Column("error_kind", Text, nullable=True),
    Column("error", Text, nullable=False),
    Column("answer", Text, nullable=False),
    Column("seconds", Float, nullable=False),
    Column("tokens_in", Integer, nullable=True),
    Column("tokens_out", Integer, nullable=True),
    Column("counted", Boolean, nullable=False),
    Column("score", _json(), nullable=False),
)
"""Every answer a model gave a review-suite task, with its score; the newest per model and task is its
standing (its call is in the usage ledger too, with purpose `suite`)."""
Index("ix_suite_answers_model_id_task_id", suite_answers.c.model_id, suite_answers.c.task_id)
