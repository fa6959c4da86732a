"""Alembic's entry point for panelgate: migrate on the connection it is handed.

`store.migrate` passes a live connection in `config.attributes`; there is
no ini file and no URL here, so the migrations run wherever the app's engine
points (SQLite or PostgreSQL) and never open a connection of their own.
"""

from __future__ import annotations

from alembic import context

from panelgate.store.tables import metadata

connection = context.config.attributes.get("connection")
if connection is None:
    raise RuntimeError(
        "panelgate's migrations run on an open connection: "
        "use panelgate.store.migrate.alembic_config(connection)"
    )

context.configure(connection=connection, target_metadata=metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
