"""The record's current verdicts are counted as they are written (`verdict_tallies`, `verdict_days`).

Revision ID: 0028
Revises: 0027
Create Date: 2026-12-02

Every verdict is kept, and the record was read by grouping all of them on
each request: with a million verdicts, `/bench/record` and the Record page
took seconds and seating's evidence stalled panels while it was re-read.
The counts now live in two small tables kept in each verdict's transaction
(`store/verdict_tallies.py`); this fills them from the verdicts there are.
A key part a verdict lacks (collection, shape, source) is stored as ''.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0028"
down_revision = "0027"
branch_labels = None
depends_on = None

CURRENT = "NOT EXISTS (SELECT 1 FROM verdicts AS newer WHERE newer.call = v.call AND newer.id > v.id)"
TALLIES = f"""
INSERT INTO verdict_tallies (model_id, collection, shape, source, useful, judged, last_at)
SELECT e.model_id, COALESCE(e.collection, ''), COALESCE(e.shape, ''), COALESCE(v.source, ''), v.useful,
       COUNT(*), MAX(v.at)
FROM verdicts AS v JOIN evidence AS e ON e.call = v.call
WHERE {CURRENT}
GROUP BY e.model_id, COALESCE(e.collection, ''), COALESCE(e.shape, ''), COALESCE(v.source, ''), v.useful
"""
DAYS = f"""
INSERT INTO verdict_days (day, collection, useful, judged)
SELECT {{day}}, COALESCE(e.collection, ''), v.useful, COUNT(*)
FROM verdicts AS v JOIN evidence AS e ON e.call = v.call
WHERE {CURRENT}
GROUP BY {{day}}, COALESCE(e.collection, ''), v.useful
"""
DAY = {"sqlite": "date(v.at)", "postgresql": "(v.at AT TIME ZONE 'UTC')::date"}


def upgrade() -> None:
    op.create_table(
        "verdict_tallies",
        sa.Column("model_id", sa.Integer, nullable=False),
        sa.Column("collection", sa.Text, nullable=False),
        sa.Column("shape", sa.Text, nullable=False),
        sa.Column("source", sa.Text, nullable=False),
        sa.Column("useful", sa.Boolean, nullable=False),
        sa.Column("judged", sa.Integer, nullable=False),
        sa.Column("last_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint(
            "model_id", "collection", "shape", "source", "useful", name="pk_verdict_tallies"
        ),
        sa.ForeignKeyConstraint(["model_id"], ["models.id"], name="fk_verdict_tallies_model_id_models"),
    )
    op.create_table(
        "verdict_days",
        sa.Column("day", sa.Date, nullable=False),
        sa.Column("collection", sa.Text, nullable=False),
        sa.Column("useful", sa.Boolean, nullable=False),
        sa.Column("judged", sa.Integer, nullable=False),
        sa.PrimaryKeyConstraint("day", "collection", "useful", name="pk_verdict_days"),
    )
    op.execute(TALLIES)
    op.execute(DAYS.format(day=DAY[op.get_bind().dialect.name]))


def downgrade() -> None:
    op.drop_table("verdict_days")
    op.drop_table("verdict_tallies")
