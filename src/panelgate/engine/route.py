"""Route mode: one member answers an agent's turn, the same member every turn, failing over unseen.

`RouteRunner.start` refuses what cannot be served (no collection, no member
able to take the turn) before anything is sent, finds the conversation the
turn belongs to, and sets the turn running in a task of its own that feeds
an event queue, so a caller who hangs up never stops the turn or its record.

The member the conversation sticks to goes first; a new conversation goes to
the best member by record (see `core.route_choice`). A member that fails
before the first piece of answer — an error, nothing within the first-token
window, an empty reply — costs the caller nothing: its chunks were held
back, the next member is asked, and `bench.failed_over` says who and why.
Reasoning alone is not an answer; it is held and goes out with the answer.
After the first piece, a failure can only be told in the stream. The turn
is recorded before its last event is queued.
"""

from __future__ import annotations

import asyncio
import logging
import random
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import orjson

from panelgate.core.call_options import call_options
from panelgate.core.errors import RateLimited, UpstreamFailed
from panelgate.core.log_context import note_turn
from panelgate.core.route import RouteBroken, RouteChunk, RouteEnded, RouteEvent, RouteRequest, RouteStarted
from panelgate.core.route_choice import (
    ROTATE_EVERY,
    RoutePlan,
    TurnFacts,
    calls_tools,
    conversation_key,
    route_plan,
    route_standing,
)
from panelgate.core.sizing import count_images, estimate_tokens
from panelgate.core.turn import TurnReader
from panelgate.core.types import CollectionInfo, Failed, GatewayLimits, ModelInfo
from panelgate.engine.collection_lookup import find_collection
from panelgate.engine.event_feed import EventFeed
from panelgate.engine.record_book import RecordBook
from panelgate.engine.reply import VERDICT_HINT
from panelgate.engine.route_shadows import ShadowSeats, ShadowTurn
from panelgate.engine.seat import target_for
from panelgate.observe import Meter
from panelgate.store import Database, EndpointRecord
from panelgate.store.records import ConversationRecord, TurnRecord
from panelgate.upstream import UpstreamClient, UpstreamError
from panelgate.upstream.ledger_notes import CallTag

log = logging.getLogger(__name__)

ROUTE_TRIES = 3
"""Members asked at most per turn."""
IDLE = timedelta(hours=1)
"""A conversation with no turn for this long starts afresh."""


def utcnow() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class RouteSettings:
    keepalive_s: float = 10.0
    first_token_s: float = 90.0
    """How long a member may stay silent before the next one is asked."""
    turn_s: float = 600.0
    """How long a whole turn may take."""


@dataclass
class _Turn:
    """One turn while it runs."""

    request: RouteRequest
    collection: CollectionInfo
    roster: Mapping[str, ModelInfo]
    endpoints: Mapping[str, EndpointRecord]
    limits: GatewayLimits
    plan: RoutePlan
    key: str
    known: ConversationRecord | None
    conversation: str
    number: int
    at: datetime
    note: str = ""
    """Said in `bench.note`: what the gateway changed about the turn, and why."""
    tried: list[dict[str, str]] = field(default_factory=list)

    token: str = field(default_factory=lambda: secrets.token_hex(3))

    @property
    def call(self) -> str:
        """Unique even when two turns of one conversation run at once (they get the same number)."""
        return f"{self.conversation}.turn{self.number}-{self.token}"


class RouteRun:
    """The events of one running turn, for one reader."""

    def __init__(self, conversation: str, feed: EventFeed[RouteEvent | Failed]) -> None:
        self.conversation = conversation
        self._feed = feed

    async def opening(self, grace_s: float) -> RouteStarted | Failed | None:
        """`RouteStarted` or `Failed`, whichever comes first within `grace_s`; None if neither did."""
        event = await self._feed.first(grace_s)
        assert event is None or isinstance(event, RouteStarted | Failed), "a turn opens with either"
        return event

    def events(self) -> AsyncIterator[RouteEvent | Failed]:
        """The events after the opening, a `Heartbeat` after each quiet interval, up to the last."""
        return self._feed.events()

    async def collect(self) -> list[RouteEvent | Failed]:
        """Every event of a whole (not streamed) reply."""
        return await self._feed.collect()


class RouteRunner:
    def __init__(
        self,
        db: Database,
        client: UpstreamClient,
        settings: RouteSettings | None = None,
        *,
        now: Callable[[], datetime] = utcnow,
        chance: Callable[[], float] = random.random,
        book: RecordBook | None = None,
        meter: Meter | None = None,
    ) -> None:
        """`book` is the record's evidence book, shared with the panels; `meter` counts failovers."""
        self._db = db
        self._meter = meter or Meter()
        self._book = book or RecordBook(db)
        self._client = client
        self._settings = settings or RouteSettings()
        self._now = now
        self._chance = chance
        self._running: set[asyncio.Task[None]] = set()
        self._shadows = ShadowSeats(db, client, turn_s=self._settings.turn_s, now=now)

    async def start(self, request: RouteRequest) -> RouteRun:
        """Plan the turn and set it running; raises `GatewayError` when no member can take it."""
        turn = await self._plan(request)
        queue: EventFeed[RouteEvent | Failed] = EventFeed(self._settings.keepalive_s, _ends_turn)
        note_turn(turn.conversation, turn.call)
        task = asyncio.create_task(self._run(turn, queue), name=f"route {turn.call}")
        self._running.add(task)
        task.add_done_callback(self._running.discard)
        return RouteRun(turn.conversation, queue)

    async def drain(self, timeout: float) -> None:
        """Let running turns finish (and be recorded) before the process stops."""
        if self._running:
            await asyncio.wait(set(self._running), timeout=timeout)

    async def _plan(self, request: RouteRequest) -> _Turn:
        bench = await self._db.bench.snapshot()
        collection = find_collection(request.collection, bench.collections)
        note = ""
        if request.has_tools and not request.has_tool_history and not calls_tools(collection, bench.roster):
            offered = len(request.body.get("tools") or [])
            request = request.without_tools()
            note = (
                f"the request offered {offered} tool(s) it had not used yet, and no member of "
                f"`{collection.name}` can call tools, so they were left out and the turn answered in text"
            )
        messages = request.messages
        key = conversation_key(collection.name, request.caller, messages, request.session)
        at = self._now()
        known = await self._db.routes.conversation(key, live_since=at - IDLE)
        facts = TurnFacts(
            has_tools=request.has_tools,
            has_images=count_images(messages) > 0,
            estimate=estimate_tokens(messages) + len(orjson.dumps(request.body.get("tools") or [])) // 4,
        )
        roster = (await self._client.cooldowns(bench.roster)).roster  # cooling down: asked last
        plan = await self._order(collection, roster, facts, known, bench.roster)
        conversation = known.id if known is not None else _conversation_id(at)
        if known is None and request.session is not None:
            claimed = await self._db.routes.claim(
                ConversationRecord(
                    key=key,
                    id=conversation,
                    collection=collection.name,
                    caller=request.caller,
                    alias=plan.order[0],
                    answered_by=(),
                    turns=0,
                    started_at=at,
                    last_at=at,
                ),
                live_since=at - IDLE,
            )
            if claimed.id != conversation:  # a turn of the same session started it first: join it
                known, plan, conversation = claimed, _sticking_to(claimed.alias, plan), claimed.id
        return _Turn(
            request=request,
            collection=collection,
            roster=bench.roster,
            endpoints=bench.endpoints,
            limits=bench.limits,
            plan=plan,
            key=key,
            known=known,
            conversation=conversation,
            number=known.turns + 1 if known is not None else 1,
            at=at,
            note=note,
        )

    async def _order(
        self,
        collection: CollectionInfo,
        roster: Mapping[str, ModelInfo],
        facts: TurnFacts,
        known: ConversationRecord | None,
        bench_roster: Mapping[str, ModelInfo],
    ) -> RoutePlan:
        """Who may take the turn, the member the conversation sticks to first.

        `roster` marks who is cooling down; `bench_roster` is the bench snapshot
        the record's book is kept for."""
        plan = route_plan(collection, roster, facts, standing={}, last_seen={}, rotate=False)
        if known is not None and known.alias in plan.order:
            return _sticking_to(known.alias, plan)
        if len(plan.order) < 2:  # the order matters only when there is a choice
            return plan
        book = await self._book.current(bench_roster)
        judged = await self._db.verdicts.judged_counts(collection.name)
        return route_plan(
            collection,
            roster,
            facts,
            standing=route_standing(book, judged, plan.order),
            last_seen=await self._db.panels.last_seated(cached=True),
            rotate=known is None and self._chance() < 1 / ROTATE_EVERY,
        )

    async def _run(self, turn: _Turn, queue: EventFeed[RouteEvent | Failed]) -> None:
        try:
            await self._ask_in_order(turn, queue)
        except Exception:
            log.exception("route turn %s failed", turn.call)
            queue.put(Failed(500, "the gateway failed while relaying this turn"))

    async def _ask_in_order(self, turn: _Turn, queue: EventFeed[RouteEvent | Failed]) -> None:
        candidates = turn.plan.order[:ROUTE_TRIES]
        for position, alias in enumerate(candidates):
            last = position == len(candidates) - 1
            member = _MemberTurn(self._client, self._settings, self._record, turn, alias, queue, last=last)
            if await member.run():
                if member.answered and turn.collection.shadows:
                    self._shadow(turn, alias)
                return
            if not last:
                self._meter.route_failover(turn.tried[-1]["kind"])
        limited = all(t["kind"] == "capacity" for t in turn.tried)
        said = "; ".join(f"`{t['alias']}`: {t['error']}" for t in turn.tried)
        refusal = (RateLimited if limited else UpstreamFailed)(
            f"every member of `{turn.collection.name}` that could take this turn failed: {said}"
        )
        await self._record(turn, alias="", status="error", error=said)
        queue.put(Failed(refusal.status, refusal.message))

    def _shadow(self, turn: _Turn, answered_by: str) -> None:
        """Set the turn's shadows asking, after the caller has its answer (see `route_shadows`)."""
        failed = {t["alias"] for t in turn.tried}
        shadow = ShadowTurn(
            call=turn.call,
            conversation=turn.conversation,
            number=turn.number,
            collection=turn.collection.name,
            caller=turn.request.caller,
            body=turn.request.body,
            candidates=tuple(a for a in turn.plan.order if a != answered_by and a not in failed),
            wanted=turn.collection.shadows,
            budget_per_day=turn.limits.shadow_calls_per_day,
            roster=turn.roster,
            endpoints=turn.endpoints,
        )
        task = asyncio.create_task(self._shadows.run(shadow), name=f"shadows of {turn.call}")
        self._running.add(task)
        task.add_done_callback(self._running.discard)

    async def _record(
        self,
        turn: _Turn,
        *,
        alias: str,
        status: str,
        reader: TurnReader | None = None,
        seconds: float = 0.0,
        first_token_s: float | None = None,
        error: str = "",
    ) -> ConversationRecord | None:
        """Write the turn down; returns the conversation as it now stands (None if nobody answered)."""
        now = self._now()
        conversation: ConversationRecord | None = None
        answered = turn.known.answered_by if turn.known is not None else ()
        if alias:
            conversation = ConversationRecord(
                key=turn.key,
                id=turn.conversation,
                collection=turn.collection.name,
                caller=turn.request.caller,
                alias=alias,
                answered_by=answered if alias in answered else (*answered, alias),
                turns=turn.number,
                started_at=turn.known.started_at if turn.known is not None else turn.at,
                last_at=now,
            )
        usage = reader.usage if reader is not None else None
        await self._db.routes.record_turn(
            TurnRecord(
                call=turn.call,
                conversation=turn.conversation,
                turn=turn.number,
                at=turn.at,
                collection=turn.collection.name,
                caller=turn.request.caller,
                alias=alias,
                status=status,
                seconds=seconds,
                first_token_s=first_token_s,
                tool_calls=len(reader.tool_calls) if reader is not None else 0,
                finish=reader.finish_reason if reader is not None else None,
                tokens_in=usage.tokens_in if usage else None,
                tokens_out=usage.tokens_out if usage else None,
                tokens_reasoning=usage.tokens_reasoning if usage else None,
                tried=tuple({"alias": t["alias"], "error": t["error"]} for t in turn.tried),
                error=error,
            ),
            conversation,
            model_id=turn.roster[alias].model_id if alias in turn.roster else None,
            new_answerer=alias not in answered,
        )
        return conversation


class _MemberTurn:
    """One member asked for one turn: its chunks held until the first piece of answer."""

    def __init__(
        self,
        client: UpstreamClient,
        settings: RouteSettings,
        record: Callable[..., Awaitable[ConversationRecord | None]],
        turn: _Turn,
        alias: str,
        queue: EventFeed[RouteEvent | Failed],
        *,
        last: bool,
    ) -> None:
        self._client = client
        self._settings = settings
        self._record = record
        self._turn = turn
        self._alias = alias
        self._queue = queue
        self._last = last
        self._reader = TurnReader(call_id_prefix=f"call_{turn.conversation}_{turn.number}")
        self._held: list[RouteChunk] = []
        self._started = False
        self._began = time.monotonic()
        self._first_token_s: float | None = None
        self._window: asyncio.Timeout | None = None
        self.answered = False
        """The turn ended with this member's whole answer (not part of one)."""

    async def run(self) -> bool:
        """True when this member's answer (or failure part way) ended the turn; False to fail over."""
        settings = self._settings
        model = self._turn.roster[self._alias]
        target = target_for(model, self._turn.endpoints)
        turn_deadline = self._began + settings.turn_s
        error: UpstreamError | None = None
        why = ""
        try:
            if target is None:
                raise UpstreamError("its endpoint is not configured any more", kind="structural")
            async with asyncio.timeout(min(settings.first_token_s, settings.turn_s)) as window:
                self._window = window
                await self._client.relay(
                    target,
                    call_options(self._turn.request.body, model),
                    deadline=turn_deadline,
                    on_chunk=self._take,
                    retries=self._last,
                    tag=CallTag("route", self._turn.request.caller, self._alias, self._turn.call),
                )
        except TimeoutError:
            why = (
                f"timeout: nothing within {settings.first_token_s:g}s"
                if not self._started
                else f"timeout: the turn passed {settings.turn_s:g}s"
            )
            error = UpstreamError(why, kind="timeout")
        except UpstreamError as exc:
            error, why = exc, f"{exc.kind}: {exc.message}"
        if self._started:
            return await self._finish(error, why)
        if error is None and not self._last:
            error, why = UpstreamError("it answered nothing", kind="empty"), "empty: it answered nothing"
        if error is not None:
            self._turn.tried.append({"alias": self._alias, "error": why, "kind": error.kind})
            return False
        self._open()  # the last member's empty answer is still its answer
        return await self._finish(None, "")

    async def _take(self, chunk: dict[str, Any]) -> None:
        pieces = self._reader.feed(chunk)
        if self._turn.request.stream:  # a whole reply is written from the reader, at the end
            event = RouteChunk({**chunk, "model": self._turn.request.model}, tuple(pieces))
            if self._started:
                self._queue.put(event)
                return
            self._held.append(event)
        if not self._started and self._reader.has_answer:
            self._first_token_s = time.monotonic() - self._began
            self._open()
            if self._window is not None:
                loop = asyncio.get_running_loop()
                remaining = self._began + self._settings.turn_s - time.monotonic()
                self._window.reschedule(loop.time() + max(0.0, remaining))

    def _open(self) -> None:
        """The answer starts: announce the member, then release what was held."""
        self._started = True
        model = self._turn.roster[self._alias]
        turn = self._turn
        self._queue.put(RouteStarted(turn.conversation, turn.call, self._alias, model.served_id))
        for event in self._held:
            self._queue.put(event)
        self._held.clear()

    async def _finish(self, error: UpstreamError | None, why: str) -> bool:
        reader = self._reader
        status = "error" if error is not None else ("ok" if reader.has_answer else "empty")
        conversation = await self._record(
            self._turn,
            alias=self._alias,
            status=status,
            reader=reader,
            seconds=time.monotonic() - self._began,
            first_token_s=self._first_token_s,
            error=why,
        )
        bench = self._bench(conversation)
        if error is not None:
            broken = f"`{self._alias}` failed part way through the turn: {why}"
            self._queue.put(RouteBroken(broken, bench))
        else:
            self.answered = True
            self._queue.put(
                RouteEnded(
                    bench=bench,
                    finish_reason=reader.finish_reason,
                    usage=reader.usage,
                    text=reader.text,
                    reasoning=reader.reasoning,
                    tool_calls=tuple(reader.tool_calls),
                )
            )
        return True

    def _bench(self, conversation: ConversationRecord | None) -> dict[str, Any]:
        turn = self._turn
        number = conversation.answered_by.index(self._alias) + 1 if conversation is not None else 1
        bench: dict[str, Any] = {
            "collection": turn.request.model,
            "reply": "route",
            "conversation": turn.conversation,
            "call": f"{turn.conversation}.{number}",
            "alias": self._alias,
            "turn": turn.number,
            "verdict": VERDICT_HINT + " (optional, once per conversation)",
        }
        if turn.tried:
            bench["failed_over"] = [{"alias": t["alias"], "error": t["error"]} for t in turn.tried]
        if turn.plan.skipped:
            bench["skipped"] = [s.as_dict() for s in turn.plan.skipped]
        if turn.note:
            bench["note"] = turn.note
        return bench


def _sticking_to(alias: str, plan: RoutePlan) -> RoutePlan:
    """`plan` with `alias` asked first, when it may take the turn at all."""
    if alias not in plan.order:
        return plan
    return RoutePlan(order=(alias, *(a for a in plan.order if a != alias)), skipped=plan.skipped)


def _conversation_id(at: datetime) -> str:
    """`r<date>-<time>-<8 hex>`: unique across processes without asking the database."""
    return f"r{at:%Y%m%d-%H%M%S}-{secrets.token_hex(4)}"


def _ends_turn(event: RouteEvent | Failed) -> bool:
    return isinstance(event, RouteEnded | RouteBroken | Failed)
