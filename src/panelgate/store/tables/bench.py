"""What people edit: endpoints, models and their former aliases, collections, gateway settings and keys,
the count of edits every process watches, and the change log."""

from __future__ import annotations

from sqlalchemy import BigInteger, Boolean, Column, Float, ForeignKey, Index, Integer, Table, Text, func, text

from panelgate.store.tables.columns import UtcDateTime, json_column, metadata

endpoints = Table(
    "endpoints",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("name", Text, nullable=False, unique=True),
    Column("base_url", Text, nullable=False),
    Column("kind", Text, nullable=False),
    Column("api", Text, nullable=False),
    Column("key_name", Text, nullable=True),
    Column("headers", json_column(), nullable=False),
    Column("is_default", Boolean, nullable=False),
    Column("created_at", UtcDateTime, nullable=False),
    Column("updated_at", UtcDateTime, nullable=False),
    Column("hub", Text, nullable=True),
    Column("admin_key_name", Text, nullable=True),
    Column("preferred", Boolean, nullable=False, server_default=text("false")),
)
"""`hub`: which hub program serves behind `base_url` (litellm, openwebui, cliproxy; null for any other
endpoint); `admin_key_name` names the secret its admin API takes (migration 0019)."""
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
    Column("options", json_column(), nullable=False),
    Column("retired_at", UtcDateTime, nullable=True),
    Column("retired_by", Text, nullable=True),
    Column("retired_why", Text, nullable=False),
    Column("restore", json_column(nullable=True), nullable=True),
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
    Column("members", json_column(), nullable=False),
    Column("shape", Text, nullable=True),
    Column("description", Text, nullable=False),
    Column("tags", json_column(), nullable=False),
    Column("reply", Text, nullable=False),
    Column("merger", Text, nullable=False),
    Column("shadows", Integer, nullable=False, server_default=text("0")),
    Column("offered_tools", Text, nullable=False, server_default=text("'drop'")),
    Column("verdicts_owed", Text, nullable=False, server_default=text("'all'")),
    Column("created_at", UtcDateTime, nullable=False),
    Column("updated_at", UtcDateTime, nullable=False),
)

gateway_settings = Table(
    "gateway_settings",
    metadata,
    Column("key", Text, primary_key=True),
    Column("value", json_column(), nullable=False),
    Column("updated_at", UtcDateTime, nullable=False),
)

gateway_keys = Table(
    "gateway_keys",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("name", Text, nullable=False),
    Column("hash", Text, nullable=False, unique=True),
    Column("hint", Text, nullable=False),
    Column("collections", json_column(nullable=True), nullable=True),
    Column("rpm", Integer, nullable=True),
    Column("ad_hoc", Boolean, nullable=False, server_default=text("false")),
    Column("created_at", UtcDateTime, nullable=False),
    Column("last_used_at", UtcDateTime, nullable=True),
    Column("revoked_at", UtcDateTime, nullable=True),
    Column("tokens_per_day", BigInteger, nullable=True),
    Column("tokens_per_month", BigInteger, nullable=True),
    Column("cost_per_day", Float, nullable=True),
    Column("cost_per_month", Float, nullable=True),
)

config_version = Table(
    "config_version",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=False),
    Column("version", Integer, nullable=False),
)
"""One row counting every committed edit of the configuration: each process can tell when to re-read it."""

audit_log = Table(
    "audit_log",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("at", UtcDateTime, nullable=False),
    Column("actor", Text, nullable=False),
    Column("entity", Text, nullable=False),
    Column("key", Text, nullable=False),
    Column("action", Text, nullable=False),
    Column("before", json_column(nullable=True), nullable=True),
    Column("after", json_column(nullable=True), nullable=True),
)
Index("ix_audit_log_entity_id", audit_log.c.entity, audit_log.c.id)
