"""Onboarding (migration 0012): the queue of models being onboarded, dismissed candidates and the
lease of the process working the queue."""

from __future__ import annotations

from sqlalchemy import Column, Float, ForeignKey, Index, Integer, Table, Text, text

from panelgate.store.tables.columns import UtcDateTime, json_column, metadata

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
    Column("steps", json_column(), nullable=False),
    Column("probes", json_column(), nullable=False),
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
