"""Times are kept in UTC and read back timezone-aware; on SQLite, as the text SQLAlchemy's DATETIME keeps."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from sqlalchemy import update
from sqlalchemy.dialects import sqlite

from panelgate.store import Database
from panelgate.store.tables import endpoints
from panelgate.store.tables.columns import UtcDateTime

TIMES = [
    datetime(2025, 3, 1, 12, 0, tzinfo=UTC),
    datetime(2025, 3, 1, 12, 0, 0, 5, tzinfo=UTC),
    datetime(999, 1, 2, 3, 4, 5, tzinfo=UTC),
    datetime(2025, 3, 1, 17, 30, 1, 250000, tzinfo=timezone(timedelta(hours=5, minutes=30))),
]


@pytest.mark.parametrize("moment", TIMES)
def test_sqlite_keeps_the_text_sqlalchemys_datetime_would(moment: datetime):
    """Rows written before and after the one-step conversion compare and sort as the same times."""
    dialect = sqlite.dialect()
    kept = UtcDateTime().bind_processor(dialect)
    ordinary = sqlite.DATETIME().bind_processor(dialect)
    assert kept is not None and ordinary is not None
    assert kept(moment) == ordinary(moment.astimezone(UTC).replace(tzinfo=None))


def test_a_naive_time_is_refused():
    kept = UtcDateTime().bind_processor(sqlite.dialect())
    assert kept is not None
    with pytest.raises(ValueError, match="timezone-aware"):
        kept(datetime(2025, 3, 1, 12, 0))


async def test_a_time_from_another_zone_is_stored_in_utc_and_read_back_aware(bench: Database):
    eastern = datetime(2025, 3, 1, 7, 0, tzinfo=timezone(timedelta(hours=-5)))
    await bench.endpoints.add("later", "http://127.0.0.1:9/v1", kind="local", actor="t")
    async with bench.engine.begin() as connection:
        moved = update(endpoints).where(endpoints.c.name == "later").values(created_at=eastern)
        await connection.execute(moved)
    found = next(e for e in await bench.endpoints.list() if e.name == "later")
    assert found.created_at == datetime(2025, 3, 1, 12, 0, tzinfo=UTC)
    assert found.created_at.tzinfo is not None
