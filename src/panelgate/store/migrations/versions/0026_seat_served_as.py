"""A seat keeps the model its reply named (`served_as`) and how many times it was asked (`attempts`).

Revision ID: 0026
Revises: 0025
Create Date: 2026-12-02

Providers swap models silently: the reply names another model than the one
asked. `served_as` keeps that name (null: the reply named the model asked,
or a dated snapshot of it, or none). An empty answer cut at the token limit
is asked once more with twice the budget; `attempts` says so (1 for every
seat before this one).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0026"
down_revision = "0025"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # plain ALTERs on both databases, as 0023 and 0025 do
    op.add_column("seats", sa.Column("served_as", sa.Text, nullable=True))
    op.add_column("seats", sa.Column("attempts", sa.Integer, nullable=False, server_default=sa.text("1")))


def downgrade() -> None:
    with op.batch_alter_table("seats") as table:
        table.drop_column("attempts")
        table.drop_column("served_as")
