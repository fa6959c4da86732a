"""Rate limits and spending: gateway keys' minutes, limits set by hand, what providers stated, the
windows' counts, and the usage ledger."""

from __future__ import annotations

from sqlalchemy import Column, Float, ForeignKey, Index, Integer, Table, Text, func

from panelgate.store.tables.columns import UtcDateTime, metadata

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
