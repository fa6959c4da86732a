"""Review-suite answers say whether they passed, so the record can count them as evidence.

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-04

A suite answer passed when it counted, found everything and invented
nothing (`suite.scoring.Score.right`). The suite decides that when it scores
an answer and the store keeps it beside `counted`, so the evidence counts
read a column instead of reading inside the score. Answers kept before this
revision are marked from their stored score with that same rule.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None

_answers = sa.table(
    "suite_answers",
    sa.column("id", sa.Integer),
    sa.column("counted", sa.Boolean),
    sa.column("score", sa.JSON),
    sa.column("passed", sa.Boolean),
)


def upgrade() -> None:
    op.add_column(
        "suite_answers", sa.Column("passed", sa.Boolean, nullable=False, server_default=sa.text("false"))
    )  # a plain ALTER on both databases: batch mode would reflect `models` and its expression index
    connection = op.get_bind()
    counted = connection.execute(sa.select(_answers.c.id, _answers.c.score).where(_answers.c.counted)).all()
    passed = [
        {"row": row.id} for row in counted if not row.score.get("missed") and not row.score.get("invented")
    ]
    if passed:
        mark = sa.update(_answers).where(_answers.c.id == sa.bindparam("row")).values(passed=True)
        connection.execute(mark, passed)


def downgrade() -> None:
    with op.batch_alter_table("suite_answers") as answers:
        answers.drop_column("passed")
