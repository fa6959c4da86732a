"""The review suite (migrations 0013, 0016): every answer a model gave a task, with its score."""

from __future__ import annotations

from sqlalchemy import Boolean, Column, Float, ForeignKey, Index, Integer, Table, Text, text

from panelgate.store.tables.columns import UtcDateTime, json_column, metadata

suite_answers = Table(
    "suite_answers",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("task_id", Text, nullable=False),
    Column("task_digest", Text, nullable=False),
    Column("shape", Text, nullable=False),
    Column("model_id", Integer, ForeignKey("models.id"), nullable=False),
    Column("alias", Text, nullable=False),
    Column("endpoint", Text, nullable=False),
    Column("served_id", Text, nullable=False),
    Column("asked_at", UtcDateTime, nullable=False),
    Column("caller", Text, nullable=False),
    Column("status", Text, nullable=False),
    Column("error_kind", Text, nullable=True),
    Column("error", Text, nullable=False),
    Column("answer", Text, nullable=False),
    Column("seconds", Float, nullable=False),
    Column("tokens_in", Integer, nullable=True),
    Column("tokens_out", Integer, nullable=True),
    Column("counted", Boolean, nullable=False),
    Column("passed", Boolean, nullable=False, server_default=text("false")),
    Column("score", json_column(), nullable=False),
)
"""Every answer a model gave a review-suite task, with its score; the newest per model and task is its
standing (its call is in the usage ledger too, with purpose `suite`)."""
Index("ix_suite_answers_model_id_task_id", suite_answers.c.model_id, suite_answers.c.task_id)
