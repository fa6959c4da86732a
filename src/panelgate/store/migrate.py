"""Brings the database schema to the newest Alembic revision at start.

The Alembic configuration is built here in code, pointing at the
`migrations/` folder inside the package, so it works from any working
directory and from an installed wheel. The upgrade runs on a connection of
the app's own async engine (`run_sync`, Alembic's async pattern) inside one
write transaction, so it never starts a second event loop; on PostgreSQL an
advisory lock makes gateway processes that start together migrate one at a
time.
"""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import text
from sqlalchemy.engine import Connection

from panelgate.store.connections import Connections

MIGRATIONS = Path(__file__).with_name("migrations")
MIGRATION_LOCK = 0x70616E656C67  # any constant shared by every panelgate process


def alembic_config(connection: Connection) -> Config:
    """An Alembic config for the package's migrations that runs on `connection`."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = connection
    return config


async def upgrade_to_head(connections: Connections) -> None:
    async with connections.write(edits_config=False) as connection:
        if connection.dialect.name == "postgresql":
            await connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK})
        await connection.run_sync(_upgrade)


def _upgrade(connection: Connection) -> None:
    command.upgrade(alembic_config(connection), "head")
