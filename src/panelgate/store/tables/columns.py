"""The metadata every table is defined on, its naming convention, and the column types they share.

Times are stored as UTC and always read back timezone-aware, on SQLite as
well as PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import JSON, DateTime, Dialect, MetaData
from sqlalchemy.types import TypeDecorator

NAMING = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

metadata = MetaData(naming_convention=NAMING)


def utcnow() -> datetime:
    return datetime.now(UTC)


class UtcDateTime(TypeDecorator[datetime]):
    """A timezone-aware UTC datetime on every database.

    SQLite keeps no zone, so values are converted to UTC before they are
    written and marked UTC when read; PostgreSQL keeps `timestamptz`.
    A naive datetime is refused: it would be a guess about the zone.
    """

    impl = DateTime(timezone=True)
    cache_ok = True

    def bind_processor(self, dialect: Dialect) -> Callable[[Any], Any] | None:
        """On SQLite, the text SQLAlchemy's DATETIME stores, made in one step: every row written pays it."""
        if dialect.name == "sqlite":
            return _sqlite_text
        return super().bind_processor(dialect)

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("the store keeps UTC times; pass a timezone-aware datetime")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)  # type: ignore[no-any-return]
        return value.astimezone(UTC)  # type: ignore[no-any-return]


def _sqlite_text(value: datetime | None) -> str | None:
    if value is None:
        return None
    if value.tzinfo is None:
        raise ValueError("the store keeps UTC times; pass a timezone-aware datetime")
    return value.astimezone(UTC).replace(tzinfo=None).isoformat(" ", "microseconds")


def json_column(nullable: bool = False) -> JSON:
    return JSON(none_as_null=nullable)
