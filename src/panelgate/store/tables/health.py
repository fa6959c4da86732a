"""Keeping the bench healthy: the scheduler's settings, lease and runs, probes, listing checks and
the alerts that need a person."""

from __future__ import annotations

from sqlalchemy import Column, Float, ForeignKey, Index, Integer, Table, Text, text

from panelgate.store.tables.columns import UtcDateTime, json_column, metadata

scheduler_settings = Table(
    "scheduler_settings",
    metadata,
    Column("key", Text, primary_key=True),
    Column("value", json_column(), nullable=False),
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
    Column("measures", json_column(), nullable=False),
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
