"""Running a panel: seat it, ask every seat at once, merge if asked, record it.

`PanelRunner.start` does everything that can refuse (unknown collection,
prompt too large, bad nominations) before anything is sent, so a refusal
keeps its status. After that the panel runs in a task of its own that feeds
an event queue: a caller who hangs up only stops reading, while every seat
still finishes and the panel is recorded. The record is written before
`Finished` is queued, so an acknowledged panel survives a crash.

A caller's own deadline (`bench.deadline_s`, `X-Bench-Deadline`) ends the
wait, not the seats: the reply goes out with the unfinished seats `timeout`
(recorded so, with their call ids), and each one's real outcome is written
over its row when it ends, so a client that cannot wait for a hanging model
still gets every answer in the record later.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal

from panelgate.core.call_options import call_options
from panelgate.core.chat_tasks import owes_verdicts
from panelgate.core.errors import BadRequest, GatewayError
from panelgate.core.ids import call_id
from panelgate.core.log_context import note_panel
from panelgate.core.merge import merger_skip
from panelgate.core.panel_tools import tools_left_out
from panelgate.core.seating import seat_panel
from panelgate.core.sizing import count_images, estimate_tokens, prompt_preview
from panelgate.core.types import (
    CollectionInfo,
    Failed,
    Finished,
    GatewayLimits,
    MergeDelta,
    MergeDone,
    ModelInfo,
    PanelEvent,
    PanelRequest,
    PanelTimes,
    ReplyMode,
    SeatDone,
    Seated,
    SeatPlan,
    SeatResult,
    Shape,
)
from panelgate.engine.collection_lookup import find_collection
from panelgate.engine.event_feed import EventFeed
from panelgate.engine.merge import run_merge
from panelgate.engine.panel_ids import PanelIdIssuer
from panelgate.engine.record import record_panel
from panelgate.engine.record_book import RecordBook
from panelgate.engine.reply import PanelWords, panel_usage
from panelgate.engine.seat import ask_seat, target_for
from panelgate.engine.seating_evidence import SeatingEvidence
from panelgate.engine.shape_decision import seat_by_shape
from panelgate.engine.swap_watch import SwapWatch
from panelgate.observe import Meter
from panelgate.store import Database, EndpointRecord
from panelgate.upstream import UpstreamClient

log = logging.getLogger(__name__)


def utcnow() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class PanelContext:
    """Everything a running panel needs, read from the store once at the start."""

    request: PanelRequest
    collection: CollectionInfo
    roster: dict[str, ModelInfo]
    endpoints: dict[str, EndpointRecord]
    limits: GatewayLimits
    plan: SeatPlan
    reply: ReplyMode
    words: PanelWords
    at: datetime
    notes: tuple[str, ...] = ()
    """What the caller should know of how the request was taken (tools left out, say)."""
    owes_verdicts: bool = True
    began: float = 0.0
    """`time.monotonic()` when seating began."""
    seated_s: float = 0.0


class PanelRun:
    """The events of one running panel, for one reader."""

    def __init__(self, panel: str, feed: EventFeed[PanelEvent]) -> None:
        self.panel = panel
        self._feed = feed

    def events(self) -> AsyncIterator[PanelEvent]:
        """Every event up to `Finished` or `Failed`, with a `Heartbeat` after each quiet interval."""
        return self._feed.events()

    async def collect(self) -> list[PanelEvent]:
        return await self._feed.collect()


class PanelRunner:
    def __init__(
        self,
        db: Database,
        client: UpstreamClient,
        *,
        keepalive_s: float = 10.0,
        now: Callable[[], datetime] = utcnow,
        ids: PanelIdIssuer | None = None,
        book: RecordBook | None = None,
        rng: random.Random | None = None,
        meter: Meter | None = None,
    ) -> None:
        """`book` is the record's evidence book, shared with route mode; `rng` draws the explorer
        rule's samples (seeded in tests, for reproducible seating); `meter` counts panels and seats."""
        self._db = db
        self._meter = meter or Meter()
        self._book = book or RecordBook(db)
        self._evidence = SeatingEvidence(db, self._book, rng or random.Random())
        self._client = client
        self._keepalive_s = keepalive_s
        self._now = now
        self._running: set[asyncio.Task[None]] = set()
        self._ids = ids or PanelIdIssuer()
        self._swaps = SwapWatch(db, now)

    async def start(self, request: PanelRequest) -> PanelRun:
        """Seat the panel and set it running; raises `GatewayError` when it cannot be seated."""
        context = await self._seat(request)
        queue: EventFeed[PanelEvent] = EventFeed(self._keepalive_s, _ends_panel)
        words = context.words
        queue.put(
            Seated(
                panel=words.panel,
                collection=words.collection,
                plan=context.plan,
                reply=context.reply,
                text=words.opening() if context.reply == "all" else "",
            )
        )
        note_panel(words.panel, (call_id(words.panel, seat.suffix) for seat in context.plan.seats))
        task = asyncio.create_task(self._run(context, queue), name=f"panel {words.panel}")
        self._running.add(task)
        task.add_done_callback(self._running.discard)
        return PanelRun(words.panel, queue)

    async def drain(self, timeout: float) -> None:
        """Let running panels finish (and be recorded) before the process stops."""
        if self._running:
            await asyncio.wait(set(self._running), timeout=timeout)

    async def _seat(self, request: PanelRequest) -> PanelContext:
        began = time.monotonic()
        bench = await self._db.bench.snapshot()
        collection = find_collection(request.collection, bench.collections)
        reply = request.reply or request.suffix_reply or collection.reply
        left_out = tools_left_out(request, collection) if reply != "route" else ""
        if reply == "route":
            # the HTTP layer sends route turns elsewhere; only a collection switched to route
            # mode between its check and this one lands here
            raise BadRequest(
                f"`{collection.name}` now answers in route mode; send the request again", param="model"
            )
        roster, limits = bench.roster, bench.limits
        last_seated = await self._db.panels.last_seated(cached=True)
        explorers_possible = min(limits.max_explorers, limits.max_calls - len(collection.members)) > 0
        evidence = await self._evidence.for_panel(roster, limits, last_seated) if explorers_possible else None
        cooling = await self._client.cooldowns(roster)

        def seat(decided: tuple[Shape, str]) -> SeatPlan:
            return seat_panel(
                collection=collection,
                roster=cooling.roster,
                limits=limits,
                estimate=estimate_tokens(request.messages),
                has_images=count_images(request.messages) > 0,
                nominees=request.nominees,
                last_seated=last_seated,
                cooling_until=cooling.until,
                decided=decided,
                evidence=evidence,
            )

        plan = await seat_by_shape(
            seat,
            self._client,
            request=request,
            limits=limits,
            roster=cooling.roster,
            endpoints=bench.endpoints,
        )
        if reply == "merged" and (skip := merger_skip(collection, roster)) is not None:
            plan = SeatPlan(
                seats=plan.seats,
                skipped=(*plan.skipped, skip),
                shape=plan.shape,
                shape_by=plan.shape_by,
                members=plan.members,
                explorers=plan.explorers,
            )
        at = self._now()
        panel = self._ids.issue(at)
        owes = owes_verdicts(collection.verdicts_owed, request.messages)
        return PanelContext(
            request=request,
            collection=collection,
            roster=roster,
            endpoints=bench.endpoints,
            limits=limits,
            plan=plan,
            reply=reply,
            at=at,
            words=PanelWords(panel=panel, collection=collection.name, plan=plan),
            notes=tuple(n for n in (left_out, _owes_none_note(collection, owes)) if n),
            owes_verdicts=owes,
            began=began,
            seated_s=time.monotonic() - began,
        )

    async def _run(self, context: PanelContext, queue: EventFeed[PanelEvent]) -> None:
        try:
            await self._run_panel(context, queue)
        except GatewayError as exc:
            queue.put(Failed(exc.status, exc.message))
        except Exception:
            log.exception("panel %s failed", context.words.panel)
            queue.put(
                Failed(
                    500,
                    "the gateway failed while finishing this panel; every seat that answered was still asked",
                )
            )

    async def _run_panel(self, context: PanelContext, queue: EventFeed[PanelEvent]) -> None:
        words, request = context.words, context.request
        waited = request_deadline(request, context.limits)
        seats, late, first_answer = await self._ask_seats(context, queue, waited)

        merger: SeatResult | None = None
        note = ""
        if context.reply == "merged":
            merger, note = await self._merge(context, seats, queue, waited)
        content, last = self._compose(context, seats, merger, note)
        reply_mode: Literal["all", "merged"] = "merged" if context.reply == "merged" and not note else "all"
        usage = panel_usage(seats, merger)
        bench = words.bench(
            seats,
            reply=reply_mode,
            usage=usage,
            merger=merger,
            note=note,
            merge_asked=context.reply == "merged",
            notes=context.notes,
            deadline_s=waited,
        )
        await record_panel(
            self._db,
            context=context,
            seats=seats,
            merger=merger,
            note="; ".join([*context.notes, note] if note else context.notes),
            reply=reply_mode,
            preview=prompt_preview(request.messages),
        )
        ended = time.monotonic()
        self._meter.panel(context.collection.name, ended - context.began)
        times = PanelTimes(
            seated_s=context.seated_s,
            first_answer_s=(first_answer or ended) - context.began,
            total_s=ended - context.began,
        )
        queue.put(Finished(content=content, bench=bench, text=last, times=times, usage=usage))
        await self._swaps.after_panel([*seats, *([merger] if merger else [])], context.roster, context.limits)
        if late:
            await self._settle(late)

    async def _ask_seats(
        self, context: PanelContext, queue: EventFeed[PanelEvent], waited: float | None
    ) -> tuple[list[SeatResult], list[asyncio.Task[tuple[int, SeatResult]]], float | None]:
        """Every seat's result in seat order, each queued as it ends; by the caller's deadline
        (`waited`) the unfinished are `timeout` and their calls go on (the tasks returned).
        Also when the first seat ended."""
        words, plan, request = context.words, context.plan, context.request
        deadline = time.monotonic() + context.limits.seat_deadline_s
        show_seats = context.reply == "all"

        async def one(index: int) -> tuple[int, SeatResult]:
            seat = plan.seats[index]
            model = context.roster[seat.alias]
            result = await ask_seat(
                self._client,
                call=call_id(words.panel, seat.suffix),
                seat=seat,
                target=target_for(model, context.endpoints),
                messages=request.messages,
                options=call_options(request.options, model),
                deadline=deadline,
                caller=request.caller,
                limits=context.limits,
                max_output=model.max_output,
            )
            self._meter.seat(result.status, result.error_kind, result.seconds)
            return index, result

        asked_at = time.monotonic()
        asking = [asyncio.create_task(one(i)) for i in range(len(plan.seats))]
        results: list[SeatResult | None] = [None] * len(plan.seats)
        first_answer: float | None = None
        # At the seat deadline the seats end by themselves: a timer then would only race them.
        timer = None if waited is None or waited >= context.limits.seat_deadline_s else waited
        with contextlib.suppress(TimeoutError):
            remaining = None if timer is None else max(0.0, context.began + timer - time.monotonic())
            for finished in asyncio.as_completed(asking, timeout=remaining):
                index, result = await finished
                results[index] = result
                first_answer = first_answer or time.monotonic()
                queue.put(SeatDone(result, text=words.section(result) if show_seats else ""))
        late = [asking[i] for i, r in enumerate(results) if r is None]
        seats = [
            r or words.unfinished(plan.seats[i], time.monotonic() - asked_at) for i, r in enumerate(results)
        ]
        for unfinished in (seats[i] for i, r in enumerate(results) if r is None):
            queue.put(SeatDone(unfinished, text=words.section(unfinished) if show_seats else ""))
        return seats, late, first_answer

    async def _settle(self, late: list[asyncio.Task[tuple[int, SeatResult]]]) -> None:
        """The seats the reply went out without, each written over its `timeout` row as it ends."""
        for finished in asyncio.as_completed(late):
            _, result = await finished
            try:
                await self._db.panels.settle_seat(
                    result.call,
                    status=result.status,
                    seconds=result.seconds,
                    answer=result.answer,
                    error=result.error,
                    tokens_in=result.tokens_in,
                    tokens_out=result.tokens_out,
                    served_as=result.served_as,
                    attempts=result.attempts,
                )
            except Exception:  # the reply is gone: the seat stays `timeout` in the record
                log.exception("could not record seat %s, which ended after its panel's reply", result.call)

    async def _merge(
        self,
        context: PanelContext,
        seats: list[SeatResult],
        queue: EventFeed[PanelEvent],
        waited: float | None,
    ) -> tuple[SeatResult | None, str]:
        """`waited`, the caller's deadline, bounds the merger's call as well: a merged reply waits at
        most that long for seats, then that long again for the merger."""
        words = context.words
        merge_s = context.limits.seat_deadline_s if waited is None else waited

        async def emit(piece: str) -> None:
            queue.put(MergeDelta(piece))

        sitting = [s.alias for s in context.plan.seats if s.kind == "member"]
        book = await self._book.current(context.roster)
        outcome = await run_merge(
            self._client,
            panel=words.panel,
            collection=context.collection,
            sitting_members=sitting,
            roster=context.roster,
            endpoints=context.endpoints,
            standing={alias: book.posterior(alias, context.plan.shape).mean for alias in sitting},
            messages=context.request.messages,
            options=context.request.options,
            results=seats,
            deadline=time.monotonic() + merge_s,
            caller=context.request.caller,
            on_text=emit,
            limits=context.limits,
        )
        fallback = words.fallback(seats, outcome.note) if outcome.note else ""
        queue.put(MergeDone(outcome.result, note=outcome.note, text=fallback))
        return outcome.result, outcome.note

    @staticmethod
    def _compose(
        context: PanelContext, seats: list[SeatResult], merger: SeatResult | None, note: str
    ) -> tuple[str, str]:
        """(whole content, last streamed piece) for how the panel ended."""
        words = context.words
        if context.reply == "merged" and merger is not None and not note:
            footer = words.merged_footer(merger, seats) + words.footer([*seats, merger])
            return merger.answer + footer, footer
        footer = words.footer(seats)
        if note:
            return words.fallback(seats, note) + footer, footer
        return words.every_answer(seats), footer


def request_deadline(request: PanelRequest, limits: GatewayLimits) -> float | None:
    """How long the caller waits for seats: its deadline capped by the seat deadline; None: no deadline."""
    return None if request.deadline_s is None else min(request.deadline_s, limits.seat_deadline_s)


def _owes_none_note(collection: CollectionInfo, owes: bool) -> str:
    """Why a panel owes no verdicts, when its prompt decided it (a `none` collection never owes any)."""
    if owes or collection.verdicts_owed != "chats":
        return ""
    return "a chat UI's background task (its prompt opens with `### Task:`), so this panel owes no verdicts"


def _ends_panel(event: PanelEvent) -> bool:
    return isinstance(event, Finished | Failed)
