"""An endpoint may be a hub the gateway can add models to, with the name of its admin key.

Revision ID: 0019
Revises: 0018
Create Date: 2026-12-02

A hub (LiteLLM proxy, Open WebUI, CLI Proxy API) serves many models behind
one base URL, and each can be told to serve one more through its admin API.
`hub` says which program it is (null for every other endpoint) and
`admin_key_name` names the secret its admin API takes, kept with the other
secrets (environment or the key file), never here.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0019"
down_revision = "0018"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # plain ALTERs on both databases, as 0016 does
    op.add_column("endpoints", sa.Column("hub", sa.Text, nullable=True))
    op.add_column("endpoints", sa.Column("admin_key_name", sa.Text, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("endpoints") as endpoints:
        endpoints.drop_column("admin_key_name")
        endpoints.drop_column("hub")
