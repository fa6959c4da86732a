"""Route mode: sticky conversations, the record of every turn, shadow seats per collection.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30

Conversations live in the database, not in a process's memory, so an agent
keeps its model across a restart and on every gateway process.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

TIME = sa.DateTime(timezone=True)


def upgrade() -> None:
    with op.batch_alter_table("collections") as collections:
        collections.add_column(sa.Column("shadows", sa.Integer, nullable=False, server_default=sa.text("0")))
    op.create_table(
        "route_conversations",
        sa.Column("key", sa.Text, nullable=False),
        sa.Column("id", sa.Text, nullable=False),
        sa.Column("collection", sa.Text, nullable=False),
        sa.Column("caller", sa.Text, nullable=False),
        sa.Column("alias", sa.Text, nullable=False),
        sa.Column("answered_by", sa.JSON(none_as_null=False), nullable=False),
        sa.Column("turns", sa.Integer, nullable=False),
        sa.Column("started_at", TIME, nullable=False),
        sa.Column("last_at", TIME, nullable=False),
        sa.PrimaryKeyConstraint("key", name="pk_route_conversations"),
        sa.UniqueConstraint("id", name="uq_route_conversations_id"),
    )
    op.create_table(
        "route_turns",
        sa.Column("call", sa.Text, nullable=False),
        sa.Column("conversation", sa.Text, nullable=False),
        sa.Column("turn", sa.Integer, nullable=False),
        sa.Column("at", TIME, nullable=False),
        sa.Column("collection", sa.Text, nullable=False),
        sa.Column("caller", sa.Text, nullable=False),
        sa.Column("alias", sa.Text, nullable=False),
        sa.Column("status", sa.Text, nullable=False),
        sa.Column("seconds", sa.Float, nullable=False),
        sa.Column("first_token_s", sa.Float, nullable=True),
        sa.Column("tool_calls", sa.Integer, nullable=False),
        sa.Column("finish", sa.Text, nullable=True),
        sa.Column("tokens_in", sa.Integer, nullable=True),
        sa.Column("tokens_out", sa.Integer, nullable=True),
        sa.Column("tokens_reasoning", sa.Integer, nullable=True),
        sa.Column("tried", sa.JSON(none_as_null=False), nullable=False),
        sa.Column("error", sa.Text, nullable=False),
        sa.Column("purpose", sa.Text, nullable=False),
        sa.Column("answer", sa.Text, nullable=False),
        sa.PrimaryKeyConstraint("call", name="pk_route_turns"),
    )
    op.create_index("ix_route_turns_conversation_turn", "route_turns", ["conversation", "turn"])
    op.create_index("ix_route_turns_at", "route_turns", ["at"])


def downgrade() -> None:
    op.drop_table("route_turns")
    op.drop_table("route_conversations")
    with op.batch_alter_table("collections") as collections:
        collections.drop_column("shadows")
