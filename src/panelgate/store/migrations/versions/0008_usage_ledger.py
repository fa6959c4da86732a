"""The usage ledger: one row per upstream call.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-30

What was sent to which model, for whom and why (panel, merge, route, probe,
suite, onboard), how it ended and the tokens it used: what quotas, costs and
health read.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

TIME = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "usage_ledger",
        sa.Column("id", sa.Integer, nullable=False),
        sa.Column("at", TIME, nullable=False),
        sa.Column("endpoint", sa.Text, nullable=False),
        sa.Column("served_id", sa.Text, nullable=False),
        sa.Column("alias", sa.Text, nullable=False),
        sa.Column("caller", sa.Text, nullable=False),
        sa.Column("purpose", sa.Text, nullable=False),
        sa.Column("call", sa.Text, nullable=True),
        sa.Column("status", sa.Text, nullable=False),
        sa.Column("error_kind", sa.Text, nullable=True),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("tokens_in", sa.Integer, nullable=True),
        sa.Column("tokens_out", sa.Integer, nullable=True),
        sa.Column("tokens_reasoning", sa.Integer, nullable=True),
        sa.Column("seconds", sa.Float, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_usage_ledger"),
    )
    op.create_index("ix_usage_ledger_at", "usage_ledger", ["at"])
    op.create_index("ix_usage_ledger_endpoint_at", "usage_ledger", ["endpoint", "at"])


def downgrade() -> None:
    op.drop_table("usage_ledger")
