"""The record filtered by a task's words finds its panels and notes by index (`store/task_words.py`).

Revision ID: 0029
Revises: 0028
Create Date: 2026-12-03

`GET /bench/record?task=lock pool` keeps the verdicts whose panel prompt or
note holds every word. Read without an index, that is every verdict of the
record: three seconds at a million panels. Each word is now looked up in a
trigram index first, so the cost follows the verdicts a word matches.

SQLite: two FTS5 tables with the trigram tokenizer (`panel_prompt_words`,
one row per panel; `verdict_note_words`, one per verdict with a note, under
the verdict's id), kept in step by triggers, so every writer of panels and
verdicts (the server, bulk imports) keeps them without knowing. A SQLite
built without FTS5 or its trigram tokenizer (before 3.34) gets plain tables
of the same columns: the filter stays right and reads every row of them.
Panels and verdicts are never deleted or rewritten today; the triggers for
that are there so a future writer cannot leave the index stale.

PostgreSQL: `pg_trgm` indexes on the lowered prompt and note. A role that
may not create the extension keeps the filter as it was (a scan) and is told
in the log, with the statements a superuser can run later to add the index.
"""

from __future__ import annotations

import logging

import sqlalchemy as sa
from alembic import op

revision = "0029"
down_revision = "0028"
branch_labels = None
depends_on = None

log = logging.getLogger("panelgate.store")

INDEXED_TABLES = (
    "CREATE VIRTUAL TABLE panel_prompt_words"
    " USING fts5(panel UNINDEXED, prompt, tokenize='trigram', detail='none')",
    "CREATE VIRTUAL TABLE verdict_note_words USING fts5(note, tokenize='trigram', detail='none')",
)
PLAIN_TABLES = (
    "CREATE TABLE panel_prompt_words (panel TEXT NOT NULL, prompt TEXT NOT NULL)",
    "CREATE TABLE verdict_note_words (id INTEGER PRIMARY KEY, note TEXT NOT NULL)",
)
SQLITE_TRIGGERS = (
    """CREATE TRIGGER panel_prompt_words_added AFTER INSERT ON panels BEGIN
        INSERT INTO panel_prompt_words (panel, prompt) VALUES (new.id, new.prompt_preview);
    END""",
    """CREATE TRIGGER panel_prompt_words_changed AFTER UPDATE OF id, prompt_preview ON panels BEGIN
        DELETE FROM panel_prompt_words WHERE panel = old.id;
        INSERT INTO panel_prompt_words (panel, prompt) VALUES (new.id, new.prompt_preview);
    END""",
    """CREATE TRIGGER panel_prompt_words_removed AFTER DELETE ON panels BEGIN
        DELETE FROM panel_prompt_words WHERE panel = old.id;
    END""",
    """CREATE TRIGGER verdict_note_words_added AFTER INSERT ON verdicts WHEN new.note <> '' BEGIN
        INSERT INTO verdict_note_words (rowid, note) VALUES (new.id, new.note);
    END""",
    """CREATE TRIGGER verdict_note_words_changed AFTER UPDATE OF id, note ON verdicts BEGIN
        DELETE FROM verdict_note_words WHERE rowid = old.id;
        INSERT INTO verdict_note_words (rowid, note) SELECT new.id, new.note WHERE new.note <> '';
    END""",
    """CREATE TRIGGER verdict_note_words_removed AFTER DELETE ON verdicts BEGIN
        DELETE FROM verdict_note_words WHERE rowid = old.id;
    END""",
)
SQLITE_FILL = (
    "INSERT INTO panel_prompt_words (panel, prompt) SELECT id, prompt_preview FROM panels",
    "INSERT INTO verdict_note_words (rowid, note) SELECT id, note FROM verdicts WHERE note <> ''",
)
POSTGRESQL_INDICES = (
    "CREATE INDEX ix_panels_prompt_words ON panels USING gin (lower(prompt_preview) gin_trgm_ops)",
    "CREATE INDEX ix_verdicts_note_words ON verdicts USING gin (lower(note) gin_trgm_ops) WHERE note <> ''",
)
POSTGRESQL_STATISTICS = ("ANALYZE panels", "ANALYZE verdicts")
"""The planner's statistics on the lowered prompt and note, which only ANALYZE gathers for a new index:
`task_words.rarest_word` asks the planner how common a word is, and without them it guesses a word in
every prompt to be in one of two hundred, until autovacuum next analyzes the table (after a tenth of
it has changed). About a second on a million panels."""


def upgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        _sqlite_word_tables()
    else:
        _postgresql_trigram_indices()


def _sqlite_word_tables() -> None:
    bind = op.get_bind()
    try:
        with bind.begin_nested():
            for statement in INDEXED_TABLES:
                bind.exec_driver_sql(statement)
    except sa.exc.OperationalError as error:  # no FTS5, or no trigram tokenizer (SQLite < 3.34)
        log.warning("this SQLite cannot index words (%s): the record's task filter reads every row", error)
        for statement in PLAIN_TABLES:
            bind.exec_driver_sql(statement)
    for statement in (*SQLITE_TRIGGERS, *SQLITE_FILL):
        bind.exec_driver_sql(statement)


def _postgresql_trigram_indices() -> None:
    bind = op.get_bind()
    try:
        with bind.begin_nested():
            bind.exec_driver_sql("CREATE EXTENSION IF NOT EXISTS pg_trgm")
            for statement in (*POSTGRESQL_INDICES, *POSTGRESQL_STATISTICS):
                bind.exec_driver_sql(statement)
    except sa.exc.DBAPIError as error:
        log.warning(
            "pg_trgm could not be used (%s): the record's task filter reads every verdict; "
            "a superuser can index it later with: CREATE EXTENSION pg_trgm; %s;",
            error.orig,
            "; ".join(POSTGRESQL_INDICES),
        )


def downgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name == "sqlite":
        for trigger in ("added", "changed", "removed"):
            bind.exec_driver_sql(f"DROP TRIGGER IF EXISTS panel_prompt_words_{trigger}")
            bind.exec_driver_sql(f"DROP TRIGGER IF EXISTS verdict_note_words_{trigger}")
        bind.exec_driver_sql("DROP TABLE panel_prompt_words")
        bind.exec_driver_sql("DROP TABLE verdict_note_words")
    else:
        bind.exec_driver_sql("DROP INDEX IF EXISTS ix_panels_prompt_words")
        bind.exec_driver_sql("DROP INDEX IF EXISTS ix_verdicts_note_words")
