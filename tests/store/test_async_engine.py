"""The store runs on SQLAlchemy's asyncio engine without loading the ORM beside it.

A fresh Python process each time: this one imported the whole package long ago.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

OPEN_RECORD_AND_SAY = """
import asyncio, json, sys
from panelgate.settings import Settings
from panelgate.store import Database

async def main():
    db = await Database.open(Settings(home=sys.argv[1]))
    await db.endpoints.add("local", "http://127.0.0.1:9/v1", actor="test")
    listed = [e.name for e in await db.endpoints.list()]
    await db.close()
    orm_then = "sqlalchemy.orm" in sys.modules
    from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession
    from sqlalchemy.ext.asyncio.engine import AsyncConnection as from_the_module
    print(json.dumps({
        "listed": listed,
        "orm_while_serving": orm_then,
        "session_module": AsyncSession.__module__,
        "same_connection_class": AsyncConnection is from_the_module,
    }))

asyncio.run(main())
"""


def test_the_store_opens_writes_and_reads_without_the_orm_and_the_session_still_imports(
    tmp_path: Path,
) -> None:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PANELGATE_")}
    done = subprocess.run(
        [sys.executable, "-c", OPEN_RECORD_AND_SAY, str(tmp_path)],
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    said = json.loads(done.stdout.strip().splitlines()[-1])
    assert said["listed"] == ["local"]
    assert said["orm_while_serving"] is False
    assert said["session_module"] == "sqlalchemy.ext.asyncio.session", "asked for, the ORM session loads"
    assert said["same_connection_class"] is True
