"""Requests per gateway key per minute, shared by every gateway process.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-30

A key's requests-per-minute limit must hold however many processes serve
it, so the count lives in the database (one row per key and minute, old
rows dropped as new minutes start).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "key_minutes",
        sa.Column("key_id", sa.Integer, nullable=False, autoincrement=False),
        sa.Column("minute", sa.Integer, nullable=False, autoincrement=False),
        sa.Column("requests", sa.Integer, nullable=False),
        sa.PrimaryKeyConstraint("key_id", "minute", name="pk_key_minutes"),
    )


def downgrade() -> None:
    op.drop_table("key_minutes")
