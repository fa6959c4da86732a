"""Gateway keys: who may call the gateway, on which collections, how often.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-30

A key is kept as the SHA-256 of its text and its last four characters, so
the database (and a copy of it) never holds a key anyone could use.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

TIME = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "gateway_keys",
        sa.Column("id", sa.Integer, nullable=False),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("hash", sa.Text, nullable=False),
        sa.Column("hint", sa.Text, nullable=False),
        sa.Column("collections", sa.JSON(none_as_null=True), nullable=True),
        sa.Column("rpm", sa.Integer, nullable=True),
        sa.Column("created_at", TIME, nullable=False),
        sa.Column("last_used_at", TIME, nullable=True),
        sa.Column("revoked_at", TIME, nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_gateway_keys"),
        sa.UniqueConstraint("hash", name="uq_gateway_keys_hash"),
    )


def downgrade() -> None:
    op.drop_table("gateway_keys")
