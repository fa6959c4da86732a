"""Route turns finishing at one moment are all recorded; a turn that cannot be written refuses only itself."""

from __future__ import annotations

import asyncio

from panelgate.store import Database
from panelgate.store.errors import Conflict
from panelgate.store.records import ConversationRecord, TurnRecord
from tests.store.conftest import T0


def turn(number: int, *, call: str | None = None) -> TurnRecord:
    return TurnRecord(
        call=call or f"r20250301-120000-{number:08x}.turn1-abc",
        conversation=f"r20250301-120000-{number:08x}",
        turn=1,
        at=T0,
        collection="agents",
        caller="-",
        alias="alpha",
        status="ok",
        seconds=0.5,
    )


def conversation(number: int) -> ConversationRecord:
    return ConversationRecord(
        key=f"key{number}",
        id=f"r20250301-120000-{number:08x}",
        collection="agents",
        caller="-",
        alias="alpha",
        answered_by=("alpha",),
        turns=1,
        started_at=T0,
        last_at=T0,
    )


async def alpha_id(bench: Database) -> int:
    return next(m.id for m in await bench.models.list() if m.alias == "alpha")


async def test_turns_finishing_together_are_all_recorded_with_their_conversations_and_evidence(
    bench: Database,
):
    model_id = await alpha_id(bench)
    await asyncio.gather(
        *(bench.routes.record_turn(turn(n), conversation(n), model_id=model_id) for n in range(12))
    )
    for n in range(12):
        stored = await bench.routes.turns(f"r20250301-120000-{n:08x}")
        assert [t.call for t in stored] == [turn(n).call]
        assert await bench.routes.conversation(f"key{n}", live_since=T0) == conversation(n)
    judgeable = [f"r20250301-120000-{n:08x}.1" for n in range(12)]
    assert await bench.verdicts.pending(judgeable) == judgeable


async def test_a_turn_that_cannot_be_written_refuses_only_itself(bench: Database):
    model_id = await alpha_id(bench)
    await bench.routes.record_turn(turn(0), conversation(0), model_id=model_id)
    repeated = bench.routes.record_turn(turn(99, call=turn(0).call), conversation(99), model_id=model_id)
    others = [bench.routes.record_turn(turn(n), conversation(n), model_id=model_id) for n in range(1, 6)]
    results = await asyncio.gather(repeated, *others, return_exceptions=True)
    assert isinstance(results[0], Conflict)
    assert results[1:] == [None] * 5
    assert await bench.routes.conversation("key99", live_since=T0) is None
    for n in range(1, 6):
        assert await bench.routes.conversation(f"key{n}", live_since=T0) == conversation(n)
