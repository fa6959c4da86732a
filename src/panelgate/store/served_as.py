"""What the record says of silent model swaps: the model each answered seat's reply named.

A seat keeps `served_as` when the reply named another model than the one
asked (`core.served_model`). Two readings of it: a model's newest answered
seats (does it keep answering as another? `engine/swap_watch.py`), and each
model's newest answered seat (the Models page). Both go through the
evidence's (model, time) index, not a scan of the seats: an answered seat
(`ok` or `empty`; an error names no model) has an evidence row.
"""

from __future__ import annotations

from sqlalchemy import and_, func, select

from panelgate.core.types import JUDGEABLE
from panelgate.store.connections import Connections
from panelgate.store.tables import evidence, seats

ANSWERED = JUDGEABLE
"""Seat statuses whose reply named a model."""
SEAT_SOURCES = ("panel", "merge")
"""Evidence written for a panel's seats (route turns leave theirs under other sources)."""


class ServedAs:
    def __init__(self, connections: Connections) -> None:
        self._connections = connections

    async def lately(self, model_id: int, most: int) -> list[str | None]:
        """`served_as` of the model's newest `most` answered seats, the newest first (None: as itself)."""
        query = (
            select(seats.c.served_as)
            .join(evidence, evidence.c.call == seats.c.call)
            .where(evidence.c.model_id == model_id, evidence.c.status.in_(ANSWERED))
            .order_by(evidence.c.at.desc(), seats.c.position.desc())
            .limit(most)
        )
        async with self._connections.read() as connection:
            return [row.served_as for row in (await connection.execute(query)).all()]

    async def last_by_model(self) -> dict[int, str]:
        """Each model whose newest answered seat named another model: that name, by model id."""
        newest = (
            select(evidence.c.model_id, func.max(evidence.c.at).label("at"))
            .where(evidence.c.status.in_(ANSWERED), evidence.c.source.in_(SEAT_SOURCES))
            .group_by(evidence.c.model_id)
            .subquery()
        )
        query = (
            select(evidence.c.model_id, seats.c.served_as)
            .join(seats, seats.c.call == evidence.c.call)
            .join(newest, and_(newest.c.model_id == evidence.c.model_id, newest.c.at == evidence.c.at))
            .where(evidence.c.status.in_(ANSWERED))
            .order_by(seats.c.position)
        )
        async with self._connections.read() as connection:
            rows = (await connection.execute(query)).all()
        found: dict[int, str | None] = {}
        for row in rows:  # a model that sat twice in its newest panel (member and merger): the last seat
            found[row.model_id] = row.served_as
        return {model_id: name for model_id, name in found.items() if name is not None}
