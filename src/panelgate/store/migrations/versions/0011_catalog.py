"""Catalog: model facts with their sources, the person's overrides, and price watch.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-01

A model's facts (context window, output limit, vision, tools, structured
output, reasoning, price, limits) come from several places that disagree:
its endpoint's own listing, the public catalogs (models.dev and OpenRouter's
model list, kept here entry by entry so a model added later is matched
without fetching them again), what an upstream's refusal said (a smaller
context window), and the person. Each fact is kept per source so the merge
can say where a value came from; a free model that turned paid is held in
`paid_holds` until a person allows it.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None

TIME = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "catalog_sources",
        sa.Column("source", sa.Text, nullable=False),
        sa.Column("url", sa.Text, nullable=False),
        sa.Column("refreshed_at", TIME, nullable=True),
        sa.Column("origin", sa.Text, nullable=False),
        sa.Column("detail", sa.Text, nullable=False),
        sa.Column("entries", sa.Integer, nullable=False),
        sa.PrimaryKeyConstraint("source", name="pk_catalog_sources"),
    )
    op.create_table(
        "catalog_entries",
        sa.Column("source", sa.Text, nullable=False),
        sa.Column("provider", sa.Text, nullable=False),
        sa.Column("model", sa.Text, nullable=False),
        sa.Column("match_key", sa.Text, nullable=False),
        sa.Column("api_host", sa.Text, nullable=False),
        sa.Column("facts", sa.JSON(none_as_null=False), nullable=False),
        sa.PrimaryKeyConstraint("source", "provider", "model", name="pk_catalog_entries"),
    )
    op.create_index("ix_catalog_entries_match_key", "catalog_entries", ["match_key"])
    op.create_table(
        "model_facts",
        sa.Column("model_id", sa.Integer, nullable=False),
        sa.Column("fact", sa.Text, nullable=False),
        sa.Column("source", sa.Text, nullable=False),
        sa.Column("value", sa.JSON(none_as_null=False), nullable=False),
        sa.Column("evidence", sa.Text, nullable=False),
        sa.Column("at", TIME, nullable=False),
        sa.PrimaryKeyConstraint("model_id", "fact", "source", name="pk_model_facts"),
        sa.ForeignKeyConstraint(["model_id"], ["models.id"], name="fk_model_facts_model_id_models"),
    )
    op.create_table(
        "paid_holds",
        sa.Column("model_id", sa.Integer, nullable=False, autoincrement=False),
        sa.Column("state", sa.Text, nullable=False),
        sa.Column("price", sa.JSON(none_as_null=False), nullable=False),
        sa.Column("source", sa.Text, nullable=False),
        sa.Column("since", TIME, nullable=False),
        sa.Column("changed_by", sa.Text, nullable=True),
        sa.PrimaryKeyConstraint("model_id", name="pk_paid_holds"),
        sa.ForeignKeyConstraint(["model_id"], ["models.id"], name="fk_paid_holds_model_id_models"),
    )


def downgrade() -> None:
    op.drop_table("paid_holds")
    op.drop_table("model_facts")
    op.drop_index("ix_catalog_entries_match_key", table_name="catalog_entries")
    op.drop_table("catalog_entries")
    op.drop_table("catalog_sources")
