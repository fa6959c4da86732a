"""Verdicts are found by when they were recorded.

Revision ID: 0018
Revises: 0017
Create Date: 2026-12-02

The Activity page counts the verdicts of the last day hour by hour, and the
Record page those of the last 30 days; without an index on `verdicts.at`
both read every verdict ever given, a table that only grows.
"""

from __future__ import annotations

from alembic import op

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_verdicts_at", "verdicts", ["at"])


def downgrade() -> None:
    op.drop_index("ix_verdicts_at", table_name="verdicts")
