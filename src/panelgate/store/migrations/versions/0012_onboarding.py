"""Onboarding: the queue of models being brought onto the bench, one step at a time.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-01

A person asks for models to be onboarded (register, probe, suite); the
queue is kept here so a restarted gateway carries on where it stopped, and
one gateway process at a time works it (a lease row, like the
scheduler's). Served models a person does not want offered again are kept
as dismissed, per endpoint.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None

TIME = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "onboarding_items",
        sa.Column("id", sa.Integer, nullable=False),
        sa.Column("batch", sa.Text, nullable=False),
        sa.Column("endpoint", sa.Text, nullable=False),
        sa.Column("served_id", sa.Text, nullable=False),
        sa.Column("alias", sa.Text, nullable=False),
        sa.Column("suite", sa.Text, nullable=False),
        sa.Column("probe_deadline_s", sa.Float, nullable=False),
        sa.Column("state", sa.Text, nullable=False),
        sa.Column("step", sa.Text, nullable=False),
        sa.Column("why", sa.Text, nullable=False),
        sa.Column("model_id", sa.Integer, nullable=True),
        sa.Column("steps", sa.JSON(none_as_null=False), nullable=False),
        sa.Column("probes", sa.JSON(none_as_null=False), nullable=False),
        sa.Column("starts", sa.Integer, nullable=False),
        sa.Column("asked_by", sa.Text, nullable=False),
        sa.Column("queued_at", TIME, nullable=False),
        sa.Column("started_at", TIME, nullable=True),
        sa.Column("updated_at", TIME, nullable=False),
        sa.Column("finished_at", TIME, nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_onboarding_items"),
        sa.ForeignKeyConstraint(["model_id"], ["models.id"], name="fk_onboarding_items_model_id_models"),
    )
    op.create_index(
        "uq_onboarding_items_waiting",
        "onboarding_items",
        ["endpoint", "served_id"],
        unique=True,
        sqlite_where=sa.text("finished_at IS NULL"),
        postgresql_where=sa.text("finished_at IS NULL"),
    )
    op.create_table(
        "onboarding_dismissed",
        sa.Column("endpoint", sa.Text, nullable=False),
        sa.Column("served_id", sa.Text, nullable=False),
        sa.Column("dismissed_at", TIME, nullable=False),
        sa.Column("dismissed_by", sa.Text, nullable=False),
        sa.PrimaryKeyConstraint("endpoint", "served_id", name="pk_onboarding_dismissed"),
        sa.ForeignKeyConstraint(
            ["endpoint"],
            ["endpoints.name"],
            name="fk_onboarding_dismissed_endpoint_endpoints",
            ondelete="CASCADE",
        ),
    )
    op.create_table(
        "onboarding_lease",
        sa.Column("id", sa.Integer, nullable=False, autoincrement=False),
        sa.Column("holder", sa.Text, nullable=False),
        sa.Column("taken_at", TIME, nullable=False),
        sa.Column("renewed_at", TIME, nullable=False),
        sa.Column("expires_at", TIME, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_onboarding_lease"),
    )


def downgrade() -> None:
    op.drop_table("onboarding_lease")
    op.drop_table("onboarding_dismissed")
    op.drop_index("uq_onboarding_items_waiting", table_name="onboarding_items")
    op.drop_table("onboarding_items")
