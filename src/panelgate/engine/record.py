"""Writing a finished panel down: panel, seats (merger included) and evidence, at once."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal

from panelgate.core.types import SeatResult
from panelgate.store import Database, PanelRecord, SeatRecord

if TYPE_CHECKING:
    from panelgate.engine.panel import PanelContext


async def record_panel(
    db: Database,
    *,
    context: PanelContext,
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
        )
        for i, r in enumerate(everyone)
    ]
    await db.panels.record(panel, rows)
