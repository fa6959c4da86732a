"""Gateway keys take token and cost budgets per UTC day and month, besides their rpm.

Revision ID: 0024
Revises: 0023
Create Date: 2026-12-02

A key that may make 60 requests a minute may still spend without bound in
tokens and dollars; these four limits stop it (null: no limit, so existing
keys keep working as before). Costs are US dollars.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0024"
down_revision = "0023"
branch_labels = None
depends_on = None

BUDGETS = ("tokens_per_day", "tokens_per_month", "cost_per_day", "cost_per_month")


def upgrade() -> None:
    with op.batch_alter_table("gateway_keys") as keys:
        keys.add_column(sa.Column("tokens_per_day", sa.BigInteger, nullable=True))
        keys.add_column(sa.Column("tokens_per_month", sa.BigInteger, nullable=True))
        keys.add_column(sa.Column("cost_per_day", sa.Float, nullable=True))
        keys.add_column(sa.Column("cost_per_month", sa.Float, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("gateway_keys") as keys:
        for column in reversed(BUDGETS):
            keys.drop_column(column)
