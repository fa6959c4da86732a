"""Two counts At a glance opens with: panels asked since a time, and answers still owed a verdict.

Counted in the database, so every gateway process shows the same numbers.
An answer is owed a verdict when its seat answered (`verdict_rules.JUDGEABLE`),
its panel owes verdicts (not a chat UI's background task) and nobody has
judged it, whoever asked: the seats the Judge view goes through.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import exists, func, select, true

from panelgate.core.types import JUDGEABLE
from panelgate.store.database import Database
from panelgate.store.tables import evidence, panels, seats, verdicts


async def panels_since(db: Database, since: datetime) -> int:
    """Panels asked at or after `since`, by anyone, of any collection."""
    query = select(func.count()).select_from(panels).where(panels.c.at >= since)
    async with db.engine.connect() as connection:
        return int((await connection.execute(query)).scalar_one())


async def answers_owed(db: Database) -> int:
    """Seats that answered, of panels that owe verdicts, with no verdict yet: what the Judge view
    walks through (`GET /api/panels?owed=true`), however old."""
    query = (
        select(func.count())
        .select_from(seats)
        .join(panels, panels.c.id == seats.c.panel)
        .join(evidence, evidence.c.call == seats.c.call)
        .where(
            panels.c.owes_verdicts.is_(true()),
            evidence.c.status.in_(JUDGEABLE),
            ~exists().where(verdicts.c.call == seats.c.call),
        )
    )
    async with db.engine.connect() as connection:
        return int((await connection.execute(query)).scalar_one())
