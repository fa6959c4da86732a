"""Whole-row inserts for the panel record, the one write every panel makes.

On SQLite the record is written inline on the event loop (`sqlite_writer`),
so its cost is every panel's latency: SQLAlchemy's execution machinery took
about 1 ms of it per panel, SQLite itself a fifth of that. Here the
statement is compiled once per table and column set, values go through the
column types' own bind processors (UTC datetimes, JSON), and the driver's
`executemany` does the rest. Other databases take the ordinary path.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from sqlalchemy import Table, insert
from sqlalchemy.engine import Connection, Dialect
from sqlalchemy.exc import IntegrityError


@dataclass(frozen=True)
class _Statement:
    sql: str
    columns: tuple[str, ...]
    processors: tuple[Callable[[Any], Any] | None, ...]

    def parameters(self, row: Mapping[str, Any]) -> tuple[Any, ...]:
        return tuple(
            row[name] if process is None else process(row[name])
            for name, process in zip(self.columns, self.processors, strict=True)
        )


@lru_cache(maxsize=64)
def _statement(table: Table, columns: tuple[str, ...], dialect: Dialect) -> _Statement:
    sql = str(insert(table).compile(dialect=dialect, column_keys=list(columns)))
    processors = tuple(table.c[name].type.dialect_impl(dialect).bind_processor(dialect) for name in columns)
    return _Statement(sql, columns, processors)


def insert_rows(connection: Connection, table: Table, rows: Sequence[Mapping[str, Any]]) -> None:
    """Insert `rows` (each with the same keys) into `table` within the connection's transaction."""
    if not rows:
        return
    if connection.dialect.name != "sqlite":
        connection.execute(insert(table), list(rows))
        return
    statement = _statement(table, tuple(rows[0]), connection.dialect)
    parameters = [statement.parameters(row) for row in rows]
    cursor = connection.connection.driver_connection.cursor()  # type: ignore[union-attr]
    try:
        cursor.executemany(statement.sql, parameters)
    except sqlite3.IntegrityError as exc:  # the same error the ordinary path raises
        raise IntegrityError(statement.sql, parameters, exc) from exc
    finally:
        cursor.close()
