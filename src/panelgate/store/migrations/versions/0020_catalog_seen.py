"""When the gateway first saw each public catalog's model, so Discover can mark the new ones.

Revision ID: 0020
Revises: 0019
Create Date: 2026-12-02

Catalog entries are replaced whole at every refresh, so they cannot say how
long a model has been listed. This table keeps the first sighting per
(provider, model) and is only ever added to. A null `first_seen` marks the
models of the first list the gateway read (the baseline): they were there
before the gateway looked, so none of them is called new.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0020"
down_revision = "0019"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "catalog_seen",
        sa.Column("provider", sa.Text, primary_key=True),
        sa.Column("model", sa.Text, primary_key=True),
        sa.Column("first_seen", sa.DateTime(timezone=True), nullable=True),
    )


def downgrade() -> None:
    op.drop_table("catalog_seen")
