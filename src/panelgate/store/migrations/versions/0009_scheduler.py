"""The scheduler: its mode and job switches, the one runner's lease, and every run.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-01

Exactly one gateway process runs the scheduled jobs, and each due time of a
job runs once, however many processes share the database: the runner holds
a lease row it renews, and a run is claimed by inserting its (job, due
time) row, which only one process can do.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

TIME = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "scheduler_settings",
        sa.Column("key", sa.Text, nullable=False),
        sa.Column("value", sa.JSON(none_as_null=False), nullable=False),
        sa.Column("changed_at", TIME, nullable=False),
        sa.PrimaryKeyConstraint("key", name="pk_scheduler_settings"),
    )
    op.create_table(
        "scheduler_lease",
        sa.Column("id", sa.Integer, nullable=False, autoincrement=False),
        sa.Column("holder", sa.Text, nullable=False),
        sa.Column("taken_at", TIME, nullable=False),
        sa.Column("renewed_at", TIME, nullable=False),
        sa.Column("expires_at", TIME, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_scheduler_lease"),
    )
    op.create_table(
        "scheduler_runs",
        sa.Column("job", sa.Text, nullable=False),
        sa.Column("due_at", TIME, nullable=False),
        sa.Column("holder", sa.Text, nullable=False),
        sa.Column("mode", sa.Text, nullable=False),
        sa.Column("asked_by", sa.Text, nullable=True),
        sa.Column("started_at", TIME, nullable=False),
        sa.Column("finished_at", TIME, nullable=True),
        sa.Column("outcome", sa.Text, nullable=False),
        sa.Column("detail", sa.Text, nullable=False),
        sa.PrimaryKeyConstraint("job", "due_at", name="pk_scheduler_runs"),
    )
    op.create_index("ix_scheduler_runs_started_at", "scheduler_runs", ["started_at"])


def downgrade() -> None:
    op.drop_table("scheduler_runs")
    op.drop_table("scheduler_lease")
    op.drop_table("scheduler_settings")
