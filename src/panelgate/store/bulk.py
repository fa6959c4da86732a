"""Plain row reads and writes for the statements every panel and route turn makes.

On SQLite these run inline on the event loop (`sqlite_writer`), so their
cost is every request's latency: SQLAlchemy's execution machinery took about
1 ms of a panel's record and most of a route turn's 2 ms of store work,
SQLite itself a fifth of that. Here a statement is compiled once per table,
columns and conflict rule; values go through the column types' own bind and
result processors (UTC datetimes, JSON), and the driver does the rest.
Other databases take the ordinary SQLAlchemy path, with the same meaning.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from sqlalchemy import Table, and_, insert, select
from sqlalchemy.dialects import postgresql
from sqlalchemy.engine import Connection, Dialect
from sqlalchemy.exc import IntegrityError

OnConflict = tuple[str, ...] | None
"""None: a repeated key is an error; `()`: the row is skipped; key columns: the row replaces the old one."""

Processor = Callable[[Any], Any] | None


@dataclass(frozen=True)
class _Insert:
    sql: str
    columns: tuple[str, ...]
    processors: tuple[Processor, ...]

    def parameters(self, row: Mapping[str, Any]) -> tuple[Any, ...]:
        # A list comprehension, not a generator: one call per row instead of one per column.
        return tuple(
            [
                row[name] if process is None else process(row[name])
                for name, process in zip(self.columns, self.processors, strict=True)
            ]
        )


@lru_cache(maxsize=64)
def _insert(table: Table, columns: tuple[str, ...], on_conflict: OnConflict, dialect: Dialect) -> _Insert:
    sql = str(insert(table).compile(dialect=dialect, column_keys=list(columns)))
    if on_conflict == ():
        sql += " ON CONFLICT DO NOTHING"
    elif on_conflict is not None:
        updates = ", ".join(f"{_quoted(c)} = excluded.{_quoted(c)}" for c in columns if c not in on_conflict)
        keys = ", ".join(_quoted(c) for c in on_conflict)
        sql += f" ON CONFLICT ({keys}) DO UPDATE SET {updates}"
    processors = tuple(table.c[name].type.dialect_impl(dialect).bind_processor(dialect) for name in columns)
    return _Insert(sql, columns, processors)


def insert_rows(
    connection: Connection, table: Table, rows: Sequence[Mapping[str, Any]], *, on_conflict: OnConflict = None
) -> None:
    """Insert `rows` (each with the same keys) into `table` within the connection's transaction."""
    if not rows:
        return
    if connection.dialect.name != "sqlite":
        connection.execute(_postgres_insert(table, tuple(rows[0]), on_conflict), list(rows))
        return
    statement = _insert(table, tuple(rows[0]), on_conflict, connection.dialect)
    parameters = [statement.parameters(row) for row in rows]
    cursor = connection.connection.driver_connection.cursor()  # type: ignore[union-attr]
    try:
        cursor.executemany(statement.sql, parameters)
    except sqlite3.IntegrityError as exc:  # the same error the ordinary path raises
        raise IntegrityError(statement.sql, parameters, exc) from exc
    finally:
        cursor.close()


def _postgres_insert(table: Table, columns: tuple[str, ...], on_conflict: OnConflict) -> Any:
    if on_conflict is None:
        return insert(table)
    statement = postgresql.insert(table)
    if on_conflict == ():
        return statement.on_conflict_do_nothing()
    updates = {c: statement.excluded[c] for c in columns if c not in on_conflict}
    return statement.on_conflict_do_update(index_elements=list(on_conflict), set_=updates)


@dataclass(frozen=True)
class _Select:
    sql: str
    columns: tuple[str, ...]
    results: tuple[Processor, ...]
    binds: tuple[Processor, ...]


@lru_cache(maxsize=64)
def _select(table: Table, where: tuple[tuple[str, str], ...], dialect: Dialect) -> _Select:
    columns = tuple(c.name for c in table.columns)
    conditions = " AND ".join(f"{_quoted(name)} {op} ?" for name, op in where)
    listed = ", ".join(_quoted(c) for c in columns)
    sql = f"SELECT {listed} FROM {_quoted(table.name)} WHERE {conditions}"
    results = tuple(c.type.dialect_impl(dialect).result_processor(dialect, None) for c in table.columns)
    binds = tuple(table.c[name].type.dialect_impl(dialect).bind_processor(dialect) for name, _ in where)
    return _Select(sql, columns, results, binds)


_OPERATORS: dict[str, Callable[[Any, Any], Any]] = {"=": lambda c, v: c == v, ">=": lambda c, v: c >= v}


def select_rows(
    connection: Connection, table: Table, where: Sequence[tuple[str, str, Any]]
) -> list[dict[str, Any]]:
    """Whole rows of `table` matching every `(column, "=" or ">=", value)` in `where`."""
    if connection.dialect.name != "sqlite":
        conditions = [_OPERATORS[op](table.c[name], value) for name, op, value in where]
        return [dict(row._mapping) for row in connection.execute(select(table).where(and_(*conditions)))]
    statement = _select(table, tuple((name, op) for name, op, _ in where), connection.dialect)
    values = tuple(
        value if process is None else process(value)
        for (_, _, value), process in zip(where, statement.binds, strict=True)
    )
    cursor = connection.connection.driver_connection.cursor()  # type: ignore[union-attr]
    try:
        found = cursor.execute(statement.sql, values).fetchall()
    finally:
        cursor.close()
    return [
        {
            name: value if process is None else process(value)
            for name, value, process in zip(statement.columns, row, statement.results, strict=True)
        }
        for row in found
    ]


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'
