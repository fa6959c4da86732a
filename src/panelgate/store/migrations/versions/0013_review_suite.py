"""Review suite: the stored answers of models to the suite's tasks.

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-01

Each answer a model gave a suite task is kept with its score (what it found,
missed and invented, or why it does not count) and the digest of the task
version it answered. Tasks themselves are folders on disk (the starter pack
in the package, a person's own in the data folder), so nothing here holds a
prompt or a fixture.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None

TIME = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "suite_answers",
        sa.Column("id", sa.Integer, nullable=False),
        sa.Column("task_id", sa.Text, nullable=False),
        sa.Column("task_digest", sa.Text, nullable=False),
        sa.Column("shape", sa.Text, nullable=False),
        sa.Column("model_id", sa.Integer, nullable=False),
        sa.Column("alias", sa.Text, nullable=False),
        sa.Column("endpoint", sa.Text, nullable=False),
        sa.Column("served_id", sa.Text, nullable=False),
        sa.Column("asked_at", TIME, nullable=False),
        sa.Column("caller", sa.Text, nullable=False),
        sa.Column("status", sa.Text, nullable=False),
        sa.Column("error_kind", sa.Text, nullable=True),
        sa.Column("error", sa.Text, nullable=False),
        sa.Column("answer", sa.Text, nullable=False),
        sa.Column("seconds", sa.Float, nullable=False),
        sa.Column("tokens_in", sa.Integer, nullable=True),
        sa.Column("tokens_out", sa.Integer, nullable=True),
        sa.Column("counted", sa.Boolean, nullable=False),
        sa.Column("score", sa.JSON(none_as_null=False), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_suite_answers"),
        sa.ForeignKeyConstraint(["model_id"], ["models.id"], name="fk_suite_answers_model_id_models"),
    )
    op.create_index("ix_suite_answers_model_id_task_id", "suite_answers", ["model_id", "task_id"])


def downgrade() -> None:
    op.drop_table("suite_answers")
