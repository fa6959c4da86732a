"""Gateway keys say whether they may seat ad hoc models through `with`.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-30

An ad hoc model is on the bench but seated only when a caller names it; a
gateway key may do that only when it was made to (keys made before may not).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("gateway_keys") as keys:
        keys.add_column(sa.Column("ad_hoc", sa.Boolean, nullable=False, server_default=sa.text("false")))


def downgrade() -> None:
    with op.batch_alter_table("gateway_keys") as keys:
        keys.drop_column("ad_hoc")
