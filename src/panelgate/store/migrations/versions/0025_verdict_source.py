"""A verdict says where it was given from: `source`, e.g. `claude-code` for a Claude Code session.

Revision ID: 0025
Revises: 0024
Create Date: 2026-12-02

Agents judge seats too (the MCP `verdict` tool, `/bench/verdict`), and a
person reading the record wants to tell their own verdicts from an agent's.
The key that judged is already kept (`actor`); the key says who, not which
tool. `source` is the short token the caller sends (null: none given, as
every verdict before this one).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0025"
down_revision = "0024"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # a plain ALTER on both databases, as 0023 does
    op.add_column("verdicts", sa.Column("source", sa.Text, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("verdicts") as table:
        table.drop_column("source")
