"""An INSERT that can say what to do when the row is there already, in each database's own words."""

from __future__ import annotations

from typing import Any

from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncConnection


def insert_for(connection: AsyncConnection) -> Any:
    """`insert` with `on_conflict_do_update` / `on_conflict_do_nothing` for the connection's database."""
    return postgresql_insert if connection.dialect.name == "postgresql" else sqlite_insert
