"""Hub admin keys a hub refused (migration 0022): kept so that no process of the cluster sends one again."""

from __future__ import annotations

from sqlalchemy import Column, ForeignKey, Table, Text

from panelgate.store.tables.columns import UtcDateTime, metadata

hub_refusals = Table(
    "hub_refusals",
    metadata,
    Column("endpoint", Text, ForeignKey("endpoints.name", ondelete="CASCADE"), primary_key=True),
    Column("key_digest", Text, nullable=False),
    Column("refused_at", UtcDateTime, nullable=False),
)
"""The last admin key each hub endpoint's hub refused, as a SHA-256 digest (never the key), and when."""
