"""A counter of configuration edits, shared by every gateway process.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-30

Each process keeps a copy of the bench (collections, roster, limits,
endpoints) and must notice another process's edit. Asking this one row once
a second replaces re-reading the whole bench once a second.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    table = op.create_table(
        "config_version",
        sa.Column("id", sa.Integer, nullable=False, autoincrement=False),
        sa.Column("version", sa.Integer, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_config_version"),
    )
    op.bulk_insert(table, [{"id": 1, "version": 0}])


def downgrade() -> None:
    op.drop_table("config_version")
