"""Gateway limits: defaults, ranges, saving."""

from __future__ import annotations

import pytest

from panelgate.core.types import GatewayLimits
from panelgate.store import Database, Invalid


async def test_limits_are_the_defaults_until_saved(db: Database) -> None:
    assert await db.gateway.limits() == GatewayLimits(max_calls=5, max_explorers=2, seat_deadline_s=420.0)


async def test_update_saves_only_the_given_limits(db: Database) -> None:
    await db.gateway.update({"max_calls": 8}, actor="t")
    await db.gateway.update({"seat_deadline_s": 60}, actor="t")
    assert await db.gateway.limits() == GatewayLimits(max_calls=8, max_explorers=2, seat_deadline_s=60.0)


@pytest.mark.parametrize(
    "changes",
    [
        {"max_calls": 0},
        {"max_calls": 11},
        {"max_calls": 2.5},
        {"max_explorers": 5},
        {"max_explorers": True},
        {"seat_deadline_s": 0.5},
        {"seat_deadline_s": 3601},
        {"max_seats": 3},
    ],
)
async def test_update_refuses_a_limit_out_of_range(db: Database, changes: dict[str, object]) -> None:
    with pytest.raises(Invalid) as refused:
        await db.gateway.update(changes, actor="t")
    assert refused.value.field == next(iter(changes))
    assert await db.gateway.limits() == GatewayLimits()
