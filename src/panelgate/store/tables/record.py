"""What panels and route turns leave: panels, seats, the evidence behind every answer, verdicts (with
the seats each judged answer beat), and route conversations and their turns."""

from __future__ import annotations

from sqlalchemy import Boolean, Column, Float, ForeignKey, Index, Integer, Table, Text, text

from panelgate.store.tables.columns import UtcDateTime, json_column, metadata

panels = Table(
    "panels",
    metadata,
    Column("id", Text, primary_key=True),
    Column("collection", Text, nullable=False),
    Column("at", UtcDateTime, nullable=False),
    Column("caller", Text, nullable=False),
    # the gateway key that asked (null without one): owed verdicts follow its id, never the name
    Column("caller_key_id", Integer, nullable=True),
    Column("shape", Text, nullable=False),
    Column("shape_by", Text, nullable=False),
    Column("reply", Text, nullable=False),
    Column("note", Text, nullable=False),
    Column("skipped", json_column(), nullable=False),
    Column("prompt_preview", Text, nullable=False),
    Column("seats", Integer, nullable=False),
    Column("owes_verdicts", Boolean, nullable=False, server_default=text("true")),
    Column("options", json_column(), nullable=False, server_default=text("'{}'")),
)
Index("ix_panels_at", panels.c.at)
Index("ix_panels_collection_at", panels.c.collection, panels.c.at)

seats = Table(
    "seats",
    metadata,
    Column("call", Text, primary_key=True),
    Column("panel", Text, ForeignKey("panels.id", ondelete="CASCADE"), nullable=False),
    Column("position", Integer, nullable=False),
    Column("label", Text, nullable=False),
    Column("kind", Text, nullable=False),
    Column("model_id", Integer, ForeignKey("models.id"), nullable=True),
    Column("alias", Text, nullable=False),
    Column("status", Text, nullable=False),
    Column("seconds", Float, nullable=False),
    Column("answer", Text, nullable=False),
    Column("error", Text, nullable=False),
    Column("tokens_in", Integer, nullable=True),
    Column("tokens_out", Integer, nullable=True),
    # the model the reply named when it was not the one asked (null: the one asked, or none named)
    Column("served_as", Text, nullable=True),
    # times the seat was asked: 2 when an empty answer cut at the token limit was asked again
    Column("attempts", Integer, nullable=False, server_default=text("1")),
)
Index("ix_seats_panel", seats.c.panel)

evidence = Table(
    "evidence",
    metadata,
    Column("call", Text, primary_key=True),
    Column("model_id", Integer, ForeignKey("models.id"), nullable=False),
    Column("source", Text, nullable=False),
    Column("collection", Text, nullable=True),
    Column("shape", Text, nullable=True),
    Column("at", UtcDateTime, nullable=False),
    Column("status", Text, nullable=False),
)
Index("ix_evidence_model_id_at", evidence.c.model_id, evidence.c.at)
Index("ix_evidence_collection", evidence.c.collection)

verdicts = Table(
    "verdicts",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("call", Text, ForeignKey("evidence.call"), nullable=False),
    Column("useful", Boolean, nullable=False),
    Column("note", Text, nullable=False),
    Column("real_claims", json_column(), nullable=False),
    Column("false_claims", json_column(), nullable=False),
    Column("at", UtcDateTime, nullable=False),
    Column("actor", Text, nullable=False),
    # where the verdict was given from, as its caller said (`claude-code`); null: not said
    Column("source", Text, nullable=True),
)
Index("ix_verdicts_call", verdicts.c.call)
Index("ix_verdicts_at", verdicts.c.at)

verdict_better_than = Table(
    "verdict_better_than",
    metadata,
    Column("verdict", Integer, ForeignKey("verdicts.id", ondelete="CASCADE"), primary_key=True),
    Column("loser", Text, ForeignKey("evidence.call"), primary_key=True),
)
"""A verdict's pairwise half: the seats of the same panel whose answers the judged one beat. They belong
to the verdict row, so a later verdict on the call (with its own list) supersedes them with it."""

route_conversations = Table(
    "route_conversations",
    metadata,
    Column("key", Text, primary_key=True),
    Column("id", Text, nullable=False, unique=True),
    Column("collection", Text, nullable=False),
    Column("caller", Text, nullable=False),
    Column("alias", Text, nullable=False),
    Column("answered_by", json_column(), nullable=False),
    Column("turns", Integer, nullable=False),
    Column("started_at", UtcDateTime, nullable=False),
    Column("last_at", UtcDateTime, nullable=False),
)

route_turns = Table(
    "route_turns",
    metadata,
    Column("call", Text, primary_key=True),
    Column("conversation", Text, nullable=False),
    Column("turn", Integer, nullable=False),
    Column("at", UtcDateTime, nullable=False),
    Column("collection", Text, nullable=False),
    Column("caller", Text, nullable=False),
    Column("alias", Text, nullable=False),
    Column("status", Text, nullable=False),
    Column("seconds", Float, nullable=False),
    Column("first_token_s", Float, nullable=True),
    Column("tool_calls", Integer, nullable=False),
    Column("finish", Text, nullable=True),
    Column("tokens_in", Integer, nullable=True),
    Column("tokens_out", Integer, nullable=True),
    Column("tokens_reasoning", Integer, nullable=True),
    Column("tried", json_column(), nullable=False),
    Column("error", Text, nullable=False),
    Column("purpose", Text, nullable=False),
    Column("answer", Text, nullable=False),
)
Index("ix_route_turns_conversation_turn", route_turns.c.conversation, route_turns.c.turn)
Index("ix_route_turns_at", route_turns.c.at)
