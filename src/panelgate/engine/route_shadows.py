"""Shadow seats: other members answer a route turn in the background, for evaluation only.

Route mode gives one member each conversation, so the others earn no
evidence on agent work. A collection may opt in to `shadows`: once the
caller has its answer, up to that many other members get the same turn, and
their answers are recorded (purpose `shadow`, judgeable like a seat) where a
person can compare them. Nothing the caller sees waits for a shadow or
changes because of one, and the whole gateway spends at most
`shadow_calls_per_day` calls a UTC day on them (turns starting at the same
moment may overshoot by the few they launch together).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import orjson

from panelgate.core.call_options import call_options
from panelgate.core.turn import TurnReader
from panelgate.core.types import ModelInfo
from panelgate.engine.seat import target_for
from panelgate.store import Database, EndpointRecord
from panelgate.store.records import TurnRecord
from panelgate.upstream import UpstreamClient, UpstreamError
from panelgate.upstream.ledger_notes import CallTag

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ShadowTurn:
    """The turn the shadows answer again, and who may shadow it."""

    call: str
    conversation: str
    number: int
    collection: str
    caller: str
    body: dict[str, Any]
    candidates: tuple[str, ...]
    wanted: int
    budget_per_day: int
    roster: Mapping[str, ModelInfo]
    endpoints: Mapping[str, EndpointRecord]


class ShadowSeats:
    def __init__(
        self,
        db: Database,
        client: UpstreamClient,
        *,
        turn_s: float,
        now: Callable[[], datetime],
    ) -> None:
        self._db = db
        self._client = client
        self._turn_s = turn_s
        self._now = now

    async def run(self, turn: ShadowTurn) -> None:
        """Ask the shadows of one turn at once and record each; never raises."""
        try:
            now = self._now()
            midnight = now.replace(hour=0, minute=0, second=0, microsecond=0)
            spent = await self._db.routes.shadow_calls_since(midnight)
            seats = turn.candidates[: max(0, min(turn.wanted, turn.budget_per_day - spent))]
            await asyncio.gather(*(self._shadow(turn, alias, k) for k, alias in enumerate(seats, 1)))
        except Exception:  # a shadow is for evaluation; its failure must not reach anyone
            log.exception("shadow seats of %s failed", turn.call)

    async def _shadow(self, turn: ShadowTurn, alias: str, number: int) -> None:
        model = turn.roster[alias]
        target = target_for(model, turn.endpoints)
        reader = TurnReader(call_id_prefix=f"call_{turn.conversation}_{turn.number}_shadow{number}")
        began = time.monotonic()
        error = ""

        async def take(chunk: dict[str, Any]) -> None:
            reader.feed(chunk)

        try:
            if target is None:
                raise UpstreamError("its endpoint is not configured any more", kind="structural")
            async with asyncio.timeout(self._turn_s):
                await self._client.relay(
                    target,
                    call_options(turn.body, model),
                    deadline=began + self._turn_s,
                    on_chunk=take,
                    retries=False,
                    tag=CallTag("shadow", turn.caller, alias, f"{turn.call}.shadow{number}"),
                )
        except TimeoutError:
            error = f"timeout: the turn passed {self._turn_s:g}s"
        except UpstreamError as exc:
            error = f"{exc.kind}: {exc.message}"
        status = "error" if error else ("ok" if reader.has_answer else "empty")
        await self._db.routes.record_turn(
            TurnRecord(
                call=f"{turn.call}.shadow{number}",
                conversation=turn.conversation,
                turn=turn.number,
                at=self._now(),
                collection=turn.collection,
                caller=turn.caller,
                alias=alias,
                status=status,
                seconds=time.monotonic() - began,
                tool_calls=len(reader.tool_calls),
                finish=reader.finish_reason,
                tokens_in=reader.usage.tokens_in,
                tokens_out=reader.usage.tokens_out,
                tokens_reasoning=reader.usage.tokens_reasoning,
                error=error,
                purpose="shadow",
                answer=_answer_text(reader.text, reader.tool_calls),
            ),
            None,
            model_id=model.model_id,
        )


def _answer_text(text: str, tool_calls: Sequence[Any]) -> str:
    """The shadow's answer as a person reads it: its text, then each tool call it made."""
    calls = [
        "tool call " + orjson.dumps({"name": c.name, "arguments": c.arguments}).decode() for c in tool_calls
    ]
    return "\n".join([text, *calls] if text else calls)
