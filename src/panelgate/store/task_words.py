"""The record filtered by a task's words: current verdicts whose panel prompt or note holds every word.

The task's rarest word is looked up in a trigram index first (revision
0029: FTS5 tables on SQLite, `pg_trgm` on PostgreSQL), so the verdicts read
are those it matches, not the whole record; a task whose every word is
common (in tens of thousands of prompts) reads the record as before, which
is then the cheaper way. The index only narrows; the match itself is always
the same `lower(text) LIKE '%word%'` test, so a word the index cannot take
(under three letters, beyond ASCII, or holding `%`, `_` or `\\`) still
matches as it did, and a database without the index gives the same answer,
only slower.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, Select, case, column, func, select, table, text, union
from sqlalchemy.ext.asyncio import AsyncConnection

from panelgate.store.current_verdicts import is_current
from panelgate.store.tables import evidence, models, panels, seats, verdicts

WORD_TABLES = ("panel_prompt_words", "verdict_note_words")
"""SQLite's word index (with FTS5's own tables under these names), kept by triggers."""
WORD_INDICES = ("ix_panels_prompt_words", "ix_verdicts_note_words")
"""PostgreSQL's word index. Neither is in `metadata`: revision 0029 makes one or the other."""

FEW_ENOUGH = 50_000
"""Prompts and notes holding a word, at most, for the word to be looked up by index first (`rarest_word`):
on a million panels, about where reading its verdicts one by one costs half of reading them all."""

panel_prompt_words = table("panel_prompt_words", column("panel"), column("prompt"))
verdict_note_words = table("verdict_note_words", column("rowid"), column("note"))


@dataclass
class TaskTally:
    alias: str
    useful: int = 0
    judged: int = 0
    last: datetime | None = None

    def add(self, useful: bool, at: datetime) -> None:
        self.useful += useful
        self.judged += 1
        self.last = at if self.last is None else max(self.last, at)


def is_word_index(name: str | None) -> bool:
    """Whether `name` is part of the word index: a table of SQLite's (or an FTS5 table behind one), or
    an index of PostgreSQL's."""
    if name is None:
        return False
    return name in WORD_INDICES or any(name == kept or name.startswith(f"{kept}_") for kept in WORD_TABLES)


def indexable(word: str) -> bool:
    """Whether the trigram index can find `word` (lowered) exactly as `LIKE '%word%'` would."""
    return len(word) >= 3 and word.isascii() and not any(sign in word for sign in "%_\\")


def prompts_holding(dialect: str, word: str) -> Select[tuple[str]]:
    """The ids of panels whose prompt holds `word` (`indexable`), found by index, in any case (SQLite's
    trigram tables fold ASCII letters; PostgreSQL's index is over the lowered prompt)."""
    if dialect == "sqlite":
        return select(panel_prompt_words.c.panel).where(panel_prompt_words.c.prompt.like(f"%{word}%"))
    return select(panels.c.id).where(func.lower(panels.c.prompt_preview).like(f"%{word}%"))


def notes_holding(dialect: str, word: str) -> Select[tuple[int]]:
    """The ids of verdicts whose note holds `word` (`indexable`), found by index, in any case."""
    if dialect == "sqlite":
        return select(verdict_note_words.c.rowid).where(verdict_note_words.c.note.like(f"%{word}%"))
    noted = verdicts.c.note != ""  # PostgreSQL's index holds only these
    return select(verdicts.c.id).where(noted, func.lower(verdicts.c.note).like(f"%{word}%"))


def verdicts_holding(dialect: str, word: str) -> Select[tuple[int]]:
    """The ids of verdicts whose panel's prompt or whose note holds `word` (`indexable`), found by index."""
    on_panels = (
        select(verdicts.c.id)
        .join(seats, seats.c.call == verdicts.c.call)
        .where(seats.c.panel.in_(prompts_holding(dialect, word)))
    )
    return select(union(on_panels, notes_holding(dialect, word)).subquery().c[0])


async def rarest_word(connection: AsyncConnection, words: Sequence[str]) -> str | None:
    """The `indexable` word the fewest prompts and notes hold, if at most `FEW_ENOUGH` do: the one word
    worth finding by index first.

    Found by index, a word's verdicts are then read one by one: for a word
    in a sixth of a million panels that costs more than reading the whole
    record once, so a word held that widely narrows nothing worth the
    lookup. Longer words are counted first, as they tend to be the rarer,
    and each count stops at the fewest found so far: a task written as a
    sentence does not count `the` through the whole record."""
    fewest: tuple[int, str] | None = None
    for word in sorted(dict.fromkeys(word for word in words if indexable(word)), key=len, reverse=True):
        most = FEW_ENOUGH if fewest is None else fewest[0] - 1  # only a rarer word is worth knowing
        if most < 0:
            break
        held = await _held_by(connection, word, most)
        if held <= most:
            fewest = (held, word)
    return None if fewest is None else fewest[1]


async def _held_by(connection: AsyncConnection, word: str, most: int) -> int:
    """How many prompts and notes hold `word`, counted past `most` (at most `FEW_ENOUGH`) only as far as
    to know it is.

    On PostgreSQL the planner is asked first: a GIN index finds every row
    before the first is returned, so counting a common word costs a tenth
    of a second, where the planner's statistics on the indexed expressions
    tell a common word in a millisecond. Its estimate of a rare word is too
    rough to pick the rarest (a handful of rows all look alike to it), so
    it only rules out words past `FEW_ENOUGH`, and the rest are counted."""
    held = 0
    for holding in (
        prompts_holding(connection.dialect.name, word),
        notes_holding(connection.dialect.name, word),
    ):
        if connection.dialect.name == "postgresql" and await _planned_rows(connection, holding) > FEW_ENOUGH:
            return most + 1
        capped = holding.limit(most + 1 - held).subquery()
        held += await connection.scalar(select(func.count()).select_from(capped)) or 0
        if held > most:
            break
    return held


async def _planned_rows(connection: AsyncConnection, query: Select[Any]) -> int:
    """The rows PostgreSQL's planner expects `query` to return."""
    literal = str(query.compile(dialect=connection.dialect, compile_kwargs={"literal_binds": True}))
    escaped = literal.replace(":", "\\:")  # a word such as `(:x` is not a bind parameter to `text`
    plan = await connection.scalar(text(f"EXPLAIN (FORMAT JSON) {escaped}"))
    return int(plan[0]["Plan"]["Plan Rows"])


def _holds(searched: ColumnElement[str], word: str) -> ColumnElement[bool]:
    """`searched`, lowered by the database, holds `word` (already lowered; `%` and `_` are literal)."""
    return func.lower(searched).contains(word, autoescape=True)


async def task_tallies(
    connection: AsyncConnection, where: ColumnElement[bool], words: Sequence[str]
) -> list[TaskTally]:
    """Current verdicts on the evidence `where` selects whose panel prompt or note holds every word
    (lowered), tallied per model (bench models last).

    The database finds the rows: a word in plain ASCII is matched there
    (both databases lower ASCII letters as Python does), so with only such
    words the database counts too and nothing is read row by row. A word
    beyond ASCII (`überprüfe`) is checked here on the rows the others left,
    since SQLite's `lower` leaves its letters as they are.
    """
    dialect = connection.dialect.name
    searched = func.coalesce(panels.c.prompt_preview, "") + "\n" + verdicts.c.note
    plain = [word for word in words if word.isascii()]
    rarest = await rarest_word(connection, plain)
    found_by_index = [] if rarest is None else [verdicts.c.id.in_(verdicts_holding(dialect, rarest))]
    query = (
        select(models.c.id, models.c.alias)
        .select_from(verdicts)
        .join(evidence, evidence.c.call == verdicts.c.call)
        .join(models, models.c.id == evidence.c.model_id)
        .outerjoin(seats, seats.c.call == evidence.c.call)
        .outerjoin(panels, panels.c.id == seats.c.panel)
        .where(where, *found_by_index, *(_holds(searched, word) for word in plain), is_current())
    )
    if len(plain) == len(words):
        counted = query.add_columns(
            func.count().label("judged"),
            func.sum(case((verdicts.c.useful, 1), else_=0)).label("useful"),
            func.max(verdicts.c.at).label("last"),
        ).group_by(models.c.id, models.c.alias, models.c.retired_at)
        rows = (await connection.execute(counted.order_by(models.c.retired_at.is_(None), models.c.id))).all()
        return [TaskTally(row.alias, int(row.useful), int(row.judged), row.last) for row in rows]
    tallies: dict[int, TaskTally] = {}
    read = query.add_columns(verdicts.c.useful, verdicts.c.at, searched.label("searched"))
    for model_id, alias, useful, at, held in (
        await connection.execute(read.order_by(models.c.retired_at.is_(None), models.c.id))
    ).all():
        if all(word in held.lower() for word in words):
            tallies.setdefault(model_id, TaskTally(alias)).add(bool(useful), at)
    return list(tallies.values())
