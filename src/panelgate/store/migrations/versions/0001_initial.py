"""The first schema: the bench, collections, settings, panels, evidence, verdicts, audit.

Revision ID: 0001
Revises:
Create Date: 2025-01-01

Self-contained on purpose: a migration describes the schema as it was at its
revision, so it does not import `store.tables` (which moves on).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

TIME = sa.DateTime(timezone=True)
LIVE = sa.text("retired_at IS NULL")


def _json(nullable: bool = False) -> sa.JSON:
    return sa.JSON(none_as_null=nullable)


def upgrade() -> None:
    _bench()
    _editing()
    _panels()
    _judging()


def _bench() -> None:
    op.create_table(
        "endpoints",
        sa.Column("id", sa.Integer, nullable=False),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("base_url", sa.Text, nullable=False),
        sa.Column("kind", sa.Text, nullable=False),
        sa.Column("api", sa.Text, nullable=False),
        sa.Column("key_name", sa.Text, nullable=True),
        sa.Column("headers", _json(), nullable=False),
        sa.Column("is_default", sa.Boolean, nullable=False),
        sa.Column("created_at", TIME, nullable=False),
        sa.Column("updated_at", TIME, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_endpoints"),
        sa.UniqueConstraint("name", name="uq_endpoints_name"),
    )
    op.create_index(
        "uq_endpoints_one_default",
        "endpoints",
        ["is_default"],
        unique=True,
        sqlite_where=sa.text("is_default"),
        postgresql_where=sa.text("is_default"),
    )
    op.create_table(
        "models",
        sa.Column("id", sa.Integer, nullable=False),
        sa.Column("alias", sa.Text, nullable=False),
        sa.Column("served_id", sa.Text, nullable=False),
        sa.Column("endpoint_id", sa.Integer, nullable=True),
        sa.Column("role", sa.Text, nullable=False),
        sa.Column("ad_hoc", sa.Boolean, nullable=False),
        sa.Column("context_window", sa.Integer, nullable=True),
        sa.Column("max_output", sa.Integer, nullable=True),
        sa.Column("vision", sa.Boolean, nullable=True),
        sa.Column("tools", sa.Boolean, nullable=True),
        sa.Column("options", _json(), nullable=False),
        sa.Column("retired_at", TIME, nullable=True),
        sa.Column("retired_by", sa.Text, nullable=True),
        sa.Column("retired_why", sa.Text, nullable=False),
        sa.Column("restore", _json(nullable=True), nullable=True),
        sa.Column("created_at", TIME, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_models"),
        sa.ForeignKeyConstraint(
            ["endpoint_id"], ["endpoints.id"], name="fk_models_endpoint_id_endpoints", ondelete="SET NULL"
        ),
    )
    op.create_index("ix_models_alias", "models", ["alias"])
    op.create_index(
        "uq_models_live_alias",
        "models",
        [sa.text("lower(alias)")],
        unique=True,
        sqlite_where=LIVE,
        postgresql_where=LIVE,
    )
    op.create_index(
        "uq_models_live_served",
        "models",
        ["endpoint_id", "served_id"],
        unique=True,
        sqlite_where=LIVE,
        postgresql_where=LIVE,
    )
    op.create_table(
        "alias_history",
        sa.Column("id", sa.Integer, nullable=False),
        sa.Column("model_id", sa.Integer, nullable=False),
        sa.Column("old_alias", sa.Text, nullable=False),
        sa.Column("new_alias", sa.Text, nullable=False),
        sa.Column("at", TIME, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_alias_history"),
        sa.ForeignKeyConstraint(["model_id"], ["models.id"], name="fk_alias_history_model_id_models"),
    )
    op.create_index("ix_alias_history_old_alias", "alias_history", [sa.text("lower(old_alias)")])
    op.create_index("ix_alias_history_model_id", "alias_history", ["model_id"])


def _editing() -> None:
    op.create_table(
        "collections",
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("members", _json(), nullable=False),
        sa.Column("shape", sa.Text, nullable=True),
        sa.Column("description", sa.Text, nullable=False),
        sa.Column("tags", _json(), nullable=False),
        sa.Column("reply", sa.Text, nullable=False),
        sa.Column("merger", sa.Text, nullable=False),
        sa.Column("created_at", TIME, nullable=False),
        sa.Column("updated_at", TIME, nullable=False),
        sa.PrimaryKeyConstraint("name", name="pk_collections"),
    )
    op.create_table(
        "gateway_settings",
        sa.Column("key", sa.Text, nullable=False),
        sa.Column("value", _json(), nullable=False),
        sa.Column("updated_at", TIME, nullable=False),
        sa.PrimaryKeyConstraint("key", name="pk_gateway_settings"),
    )
    op.create_table(
        "audit_log",
        sa.Column("id", sa.Integer, nullable=False),
        sa.Column("at", TIME, nullable=False),
        sa.Column("actor", sa.Text, nullable=False),
        sa.Column("entity", sa.Text, nullable=False),
        sa.Column("key", sa.Text, nullable=False),
        sa.Column("action", sa.Text, nullable=False),
        sa.Column("before", _json(nullable=True), nullable=True),
        sa.Column("after", _json(nullable=True), nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_audit_log"),
    )
    op.create_index("ix_audit_log_entity_id", "audit_log", ["entity", "id"])


def _panels() -> None:
    op.create_table(
        "panels",
        sa.Column("id", sa.Text, nullable=False),
        sa.Column("collection", sa.Text, nullable=False),
        sa.Column("at", TIME, nullable=False),
        sa.Column("caller", sa.Text, nullable=False),
        sa.Column("shape", sa.Text, nullable=False),
        sa.Column("shape_by", sa.Text, nullable=False),
        sa.Column("reply", sa.Text, nullable=False),
        sa.Column("note", sa.Text, nullable=False),
        sa.Column("skipped", _json(), nullable=False),
        sa.Column("prompt_preview", sa.Text, nullable=False),
        sa.Column("seats", sa.Integer, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_panels"),
    )
    op.create_index("ix_panels_at", "panels", ["at"])
    op.create_index("ix_panels_collection_at", "panels", ["collection", "at"])
    op.create_table(
        "seats",
        sa.Column("call", sa.Text, nullable=False),
        sa.Column("panel", sa.Text, nullable=False),
        sa.Column("position", sa.Integer, nullable=False),
        sa.Column("label", sa.Text, nullable=False),
        sa.Column("kind", sa.Text, nullable=False),
        sa.Column("model_id", sa.Integer, nullable=True),
        sa.Column("alias", sa.Text, nullable=False),
        sa.Column("status", sa.Text, nullable=False),
        sa.Column("seconds", sa.Float, nullable=False),
        sa.Column("answer", sa.Text, nullable=False),
        sa.Column("error", sa.Text, nullable=False),
        sa.Column("tokens_in", sa.Integer, nullable=True),
        sa.Column("tokens_out", sa.Integer, nullable=True),
        sa.PrimaryKeyConstraint("call", name="pk_seats"),
        sa.ForeignKeyConstraint(["panel"], ["panels.id"], name="fk_seats_panel_panels", ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["model_id"], ["models.id"], name="fk_seats_model_id_models"),
    )
    op.create_index("ix_seats_panel", "seats", ["panel"])


def _judging() -> None:
    op.create_table(
        "evidence",
        sa.Column("call", sa.Text, nullable=False),
        sa.Column("model_id", sa.Integer, nullable=False),
        sa.Column("source", sa.Text, nullable=False),
        sa.Column("collection", sa.Text, nullable=True),
        sa.Column("shape", sa.Text, nullable=True),
        sa.Column("at", TIME, nullable=False),
        sa.Column("status", sa.Text, nullable=False),
        sa.PrimaryKeyConstraint("call", name="pk_evidence"),
        sa.ForeignKeyConstraint(["model_id"], ["models.id"], name="fk_evidence_model_id_models"),
    )
    op.create_index("ix_evidence_model_id_at", "evidence", ["model_id", "at"])
    op.create_index("ix_evidence_collection", "evidence", ["collection"])
    op.create_table(
        "verdicts",
        sa.Column("id", sa.Integer, nullable=False),
        sa.Column("call", sa.Text, nullable=False),
        sa.Column("useful", sa.Boolean, nullable=False),
        sa.Column("note", sa.Text, nullable=False),
        sa.Column("real_claims", _json(), nullable=False),
        sa.Column("false_claims", _json(), nullable=False),
        sa.Column("at", TIME, nullable=False),
        sa.Column("actor", sa.Text, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_verdicts"),
        sa.ForeignKeyConstraint(["call"], ["evidence.call"], name="fk_verdicts_call_evidence"),
    )
    op.create_index("ix_verdicts_call", "verdicts", ["call"])


def downgrade() -> None:
    for table in (
        "verdicts",
        "evidence",
        "seats",
        "panels",
        "audit_log",
        "gateway_settings",
        "collections",
        "alias_history",
        "models",
        "endpoints",
    ):
        op.drop_table(table)
