"""Health: probe results, what each endpoint still lists, and the alerts that need a person.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-01

A model's status and auto-retirement are decided from evidence: the usage
ledger's calls, the probes kept here (with their speed and capability
measures), and since when an endpoint's model list has left a model out.
Alerts are what will not fix itself; one open alert per key.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None

TIME = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "probes",
        sa.Column("id", sa.Integer, nullable=False),
        sa.Column("at", TIME, nullable=False),
        sa.Column("model_id", sa.Integer, nullable=False),
        sa.Column("alias", sa.Text, nullable=False),
        sa.Column("endpoint", sa.Text, nullable=False),
        sa.Column("served_id", sa.Text, nullable=False),
        sa.Column("probe", sa.Text, nullable=False),
        sa.Column("status", sa.Text, nullable=False),
        sa.Column("error_kind", sa.Text, nullable=True),
        sa.Column("error", sa.Text, nullable=False),
        sa.Column("seconds", sa.Float, nullable=False),
        sa.Column("measures", sa.JSON(none_as_null=False), nullable=False),
        sa.Column("caller", sa.Text, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_probes"),
        sa.ForeignKeyConstraint(["model_id"], ["models.id"], name="fk_probes_model_id_models"),
    )
    op.create_index("ix_probes_model_id_at", "probes", ["model_id", "at"])
    op.create_table(
        "listing_checks",
        sa.Column("endpoint", sa.Text, nullable=False),
        sa.Column("served_id", sa.Text, nullable=False),
        sa.Column("checked_at", TIME, nullable=False),
        sa.Column("last_seen_at", TIME, nullable=True),
        sa.Column("missing_since", TIME, nullable=True),
        sa.PrimaryKeyConstraint("endpoint", "served_id", name="pk_listing_checks"),
    )
    op.create_table(
        "alerts",
        sa.Column("id", sa.Integer, nullable=False),
        sa.Column("key", sa.Text, nullable=False),
        sa.Column("kind", sa.Text, nullable=False),
        sa.Column("subject", sa.Text, nullable=False),
        sa.Column("message", sa.Text, nullable=False),
        sa.Column("restore", sa.Text, nullable=True),
        sa.Column("raised_at", TIME, nullable=False),
        sa.Column("updated_at", TIME, nullable=False),
        sa.Column("dismissed_at", TIME, nullable=True),
        sa.Column("dismissed_by", sa.Text, nullable=True),
        sa.Column("cleared_at", TIME, nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_alerts"),
    )
    op.create_index(
        "uq_alerts_open_key",
        "alerts",
        ["key"],
        unique=True,
        sqlite_where=sa.text("cleared_at IS NULL"),
        postgresql_where=sa.text("cleared_at IS NULL"),
    )


def downgrade() -> None:
    op.drop_table("alerts")
    op.drop_table("listing_checks")
    op.drop_table("probes")
