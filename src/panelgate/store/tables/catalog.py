"""The catalog (migration 0011): public catalogs' sources and entries, per-model facts and price
holds."""

from __future__ import annotations

from sqlalchemy import Column, ForeignKey, Index, Integer, Table, Text

from panelgate.store.tables.columns import UtcDateTime, json_column, metadata

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
    Column("facts", json_column(), nullable=False),
)
"""Every model a public catalog lists (models.dev per provider; OpenRouter's as provider `openrouter`),
its facts read into our names, found by `match_key` (the served id's last segment, `catalog.matching`)."""
Index("ix_catalog_entries_match_key", catalog_entries.c.match_key)

catalog_seen = Table(
    "catalog_seen",
    metadata,
    Column("provider", Text, primary_key=True),
    Column("model", Text, primary_key=True),
    Column("first_seen", UtcDateTime, nullable=True),
)
"""When each catalog model was first seen (migration 0020); null: in the first list read, the baseline."""

model_facts = Table(
    "model_facts",
    metadata,
    Column("model_id", Integer, ForeignKey("models.id"), primary_key=True),
    Column("fact", Text, primary_key=True),
    Column("source", Text, primary_key=True),
    Column("value", json_column(), nullable=False),
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
    Column("price", json_column(), nullable=False),
    Column("source", Text, nullable=False),
    Column("since", UtcDateTime, nullable=False),
    Column("changed_by", Text, nullable=True),
)
"""Price watch: a free model that turned paid is `held` (never called) until a person `allowed` it."""
