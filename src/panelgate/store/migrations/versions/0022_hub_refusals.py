"""The admin key a hub refused, remembered by every gateway process.

Revision ID: 0022
Revises: 0021
Create Date: 2026-12-02

CLI Proxy API bans the caller's address after five refused management
keys. Each process kept the refusal in its memory, so a cluster of five
could be banned by one wrong key. The refusal is now one row per hub
endpoint: the key's SHA-256 digest (the key itself is a secret and stays
in the key store) and when it was refused. A different key is a new try.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0022"
down_revision = "0021"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "hub_refusals",
        sa.Column("endpoint", sa.Text, sa.ForeignKey("endpoints.name", ondelete="CASCADE"), primary_key=True),
        sa.Column("key_digest", sa.Text, nullable=False),
        sa.Column("refused_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("hub_refusals")
