"""Migrations run by a short-lived child process, so a long-running server never holds Alembic.

Alembic and the Mako templates it loads are about 10 MiB that a process
keeps for as long as it runs once it has imported them, and a server needs
them for a second: on its first start, and on the first start after an
upgrade. So `panelgate serve` has a child process bring a database that is
behind to the newest revision (under the same locks as in-process, so
several workers or servers starting at once still migrate one at a time),
and then finds the database at the newest revision itself and imports
neither. A database already there costs one read of `alembic_version`.

The URL (which may hold a password) reaches the child in its environment,
never on its command line, where `ps` would show it to every user.
"""

from __future__ import annotations

import asyncio
import os
import sys

from sqlalchemy import make_url

from panelgate.store.connections import Connections, make_engine
from panelgate.store.migrate import at_newest_revision, sqlite_setup_lock, upgrade_to_head

URL_VARIABLE = "PANELGATE_MIGRATE_URL"


class MigrationFailed(RuntimeError):
    """The child could not bring the database to the newest revision; the message ends with its error
    (the last line of its traceback)."""


def can_migrate_apart(url: str) -> bool:
    """Whether another process can reach the database at `url` (not SQLite held in memory)."""
    parsed = make_url(url)
    return parsed.get_backend_name() != "sqlite" or parsed.database not in (None, "", ":memory:")


async def upgrade_apart_if_behind(connections: Connections, url: str) -> None:
    """Bring the database to the newest revision in a child process, when it is not there yet."""
    if not can_migrate_apart(url) or await at_newest_revision(connections, sqlite_setup_lock(url)):
        return
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        __name__,
        env={**os.environ, URL_VARIABLE: url},
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    _, errors = await child.communicate()
    if child.returncode != 0:
        lines = errors.decode(errors="replace").strip().splitlines()
        said = lines[-1] if lines else f"the migrating process exited with {child.returncode}"  # the error
        password = make_url(url).password
        if password:
            said = said.replace(str(password), "***")
        raise MigrationFailed(f"the database could not be brought to the newest revision: {said}")


async def _upgrade(url: str) -> None:
    engine = make_engine(url)
    try:
        await upgrade_to_head(Connections(engine), sqlite_setup_lock(url))
    finally:
        await engine.dispose()


if __name__ == "__main__":
    asyncio.run(_upgrade(os.environ[URL_VARIABLE]))
