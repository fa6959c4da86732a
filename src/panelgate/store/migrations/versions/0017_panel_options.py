"""A panel keeps the call options its caller asked for (temperature, max tokens, stop…).

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-05

Every seat and the merger are now sent the caller's sampling options, over
each model's stored ones and clamped to what it takes. A person comparing
answers must see whether they were asked at `temperature: 0` or with a
token cap, so the panel row keeps what the caller sent (never the prompt).
Panels recorded before this revision were sent no options: `{}`.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column(
        "panels",
        sa.Column("options", sa.JSON(none_as_null=False), nullable=False, server_default=sa.text("'{}'")),
    )  # a plain ALTER on both databases, as 0016 does


def downgrade() -> None:
    with op.batch_alter_table("panels") as panels:
        panels.drop_column("options")
