"""An endpoint may be marked preferred: among equally good explorer candidates, its models sit first.

Revision ID: 0027
Revises: 0026
Create Date: 2026-12-02

A person who pays one provider by the month, or trusts one more, wants its
models seated when the record cannot tell two candidates apart. `preferred`
breaks those ties only (`core/explorer_policy.py`); it never outranks a
better record. Every endpoint written before this one is not preferred.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0027"
down_revision = "0026"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # a plain ALTER on both databases, as 0019 and 0026 do
    op.add_column(
        "endpoints", sa.Column("preferred", sa.Boolean, nullable=False, server_default=sa.text("false"))
    )


def downgrade() -> None:
    with op.batch_alter_table("endpoints") as endpoints:
        endpoints.drop_column("preferred")
