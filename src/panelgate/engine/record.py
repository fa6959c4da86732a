"""Writing a finished panel down: panel, seats (merger included) and evidence, at once."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Literal, Protocol

from panelgate.core.types import ModelInfo, PanelRequest, SeatPlan, SeatResult
from panelgate.engine.reply import PanelWords
from panelgate.store import Database, PanelRecord, SeatRecord


class RecordedPanel(Protocol):
    """What recording reads of a running panel (`engine.panel.PanelContext` is one), named here
    so this module needs nothing from the runner that calls it."""

    @property
    def request(self) -> PanelRequest: ...

    @property
    def roster(self) -> Mapping[str, ModelInfo]: ...

    @property
    def plan(self) -> SeatPlan: ...

    @property
    def words(self) -> PanelWords: ...

    @property
    def at(self) -> datetime: ...

    @property
    def owes_verdicts(self) -> bool: ...


async def record_panel(
    db: Database,
    *,
    context: RecordedPanel,
    seats: Sequence[SeatResult],
    merger: SeatResult | None,
    note: str,
    reply: Literal["all", "merged"],
    preview: str,
) -> None:
    words, plan = context.words, context.plan
    everyone = [*seats, *([merger] if merger is not None else [])]
    panel = PanelRecord(
        id=words.panel,
        collection=words.collection,
        at=context.at,
        caller=context.request.caller,
        caller_key_id=context.request.caller_key_id,
        shape=plan.shape,
        shape_by=plan.shape_by,
        reply=reply,
        note=note,
        skipped=[s.as_dict() for s in plan.skipped],
        prompt_preview=preview,
        seats=len(everyone),
        owes_verdicts=context.owes_verdicts,
        options=context.request.options,
    )
    rows = [
        SeatRecord(
            call=r.call,
            panel=words.panel,
            position=i,
            label=r.label,
            kind=r.kind,
            alias=r.alias,
            status=r.status,
            seconds=r.seconds,
            answer=r.answer,
            error=r.error,
            tokens_in=r.tokens_in,
            tokens_out=r.tokens_out,
            model_id=context.roster[r.alias].model_id if r.alias in context.roster else None,
            served_as=r.served_as,
            attempts=r.attempts,
        )
        for i, r in enumerate(everyone)
    ]
    await db.panels.record(panel, rows)
