"""Pairwise verdicts: the seats of a panel whose answers a judged seat's answer beat.

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-03

A verdict may now say "this seat's answer was better than those" about
other seats of the same panel (`better_than`). Each such pair is a row tied
to the verdict row that said it, so a later verdict on the call, which
supersedes the earlier one, brings its own list and the earlier pairs stop
counting with it. Pairs feed a Bradley–Terry ranking per (model, shape).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "verdict_better_than",
        sa.Column("verdict", sa.Integer, nullable=False),
        sa.Column("loser", sa.Text, nullable=False),
        sa.PrimaryKeyConstraint("verdict", "loser", name="pk_verdict_better_than"),
        sa.ForeignKeyConstraint(
            ["verdict"],
            ["verdicts.id"],
            name="fk_verdict_better_than_verdict_verdicts",
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(["loser"], ["evidence.call"], name="fk_verdict_better_than_loser_evidence"),
    )


def downgrade() -> None:
    op.drop_table("verdict_better_than")
