"""Rate limits: rules set by hand, what was spent under them, and what providers state.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-30

Pacing must hold across gateway processes, so what a rule allows and what
was spent under it live in the database; what a provider last said about a
model's limits is kept too, so every process (and a restarted one) waits
for the same reset.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
TIME = sa.DateTime(timezone=True)
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "rate_rules",
        sa.Column("id", sa.Integer, nullable=False),
        sa.Column("endpoint", sa.Text, nullable=False),
        sa.Column("served_id", sa.Text, nullable=True),
        sa.Column("measure", sa.Text, nullable=False),
        sa.Column("window", sa.Text, nullable=False),
        sa.Column("most", sa.Integer, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_rate_rules"),
        sa.ForeignKeyConstraint(
            ["endpoint"], ["endpoints.name"], name="fk_rate_rules_endpoint_endpoints", ondelete="CASCADE"
        ),
    )
    op.create_index(
        "uq_rate_rules_scope",
        "rate_rules",
        ["endpoint", sa.text("coalesce(served_id, '')"), "measure", "window"],
        unique=True,
    )
    op.create_table(
        "rate_usage",
        sa.Column("rule_id", sa.Integer, nullable=False),
        sa.Column("period", sa.Integer, nullable=False, autoincrement=False),
        sa.Column("used", sa.Integer, nullable=False),
        sa.PrimaryKeyConstraint("rule_id", "period", name="pk_rate_usage"),
        sa.ForeignKeyConstraint(
            ["rule_id"], ["rate_rules.id"], name="fk_rate_usage_rule_id_rate_rules", ondelete="CASCADE"
        ),
    )
    op.create_table(
        "rate_stated",
        sa.Column("endpoint", sa.Text, nullable=False),
        sa.Column("served_id", sa.Text, nullable=False),
        sa.Column("measure", sa.Text, nullable=False),
        sa.Column("most", sa.Integer, nullable=True),
        sa.Column("remaining", sa.Integer, nullable=True),
        sa.Column("resets_at", TIME, nullable=True),
        sa.Column("retry_at", TIME, nullable=True),
        sa.Column("quota", sa.Text, nullable=False),
        sa.Column("style", sa.Text, nullable=False),
        sa.Column("updated_at", TIME, nullable=False),
        sa.PrimaryKeyConstraint("endpoint", "served_id", "measure", name="pk_rate_stated"),
    )


def downgrade() -> None:
    op.drop_table("rate_stated")
    op.drop_table("rate_usage")
    op.drop_index("uq_rate_rules_scope", table_name="rate_rules")
    op.drop_table("rate_rules")
