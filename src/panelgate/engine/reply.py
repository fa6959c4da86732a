"""What a panel's reply says: its content pieces and its `bench` field.

The engine hands each event the piece of content a streaming client should
see at that moment; the whole reply is the same pieces in seat order. Keeping
both here means streamed and whole replies cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from panelgate.core import markdown
from panelgate.core.ids import call_id
from panelgate.core.types import PlannedSeat, ReplyMode, SeatPlan, SeatResult, TokenUsage

VERDICT_HINT = 'POST /bench/verdict {"call", "useful": true|false, "note", "real": [...], "false": [...]}'


@dataclass(frozen=True)
class PanelWords:
    """The fixed facts every piece of a panel's reply is written from."""

    panel: str
    collection: str
    plan: SeatPlan

    @property
    def model(self) -> str:
        return f"bench/{self.collection}"

    def opening(self) -> str:
        plan = self.plan
        return markdown.heading(
            self.model, self.panel, plan.members, plan.explorers, plan.shape, plan.shape_by
        ) + markdown.not_asked(plan.skipped)

    def section(self, result: SeatResult) -> str:
        return markdown.section(result)

    def unfinished(self, seat: PlannedSeat, seconds: float) -> SeatResult:
        """A seat not done by the caller's deadline, as the reply (and the record, until it ends) shows it."""
        return SeatResult(
            call=call_id(self.panel, seat.suffix),
            label=seat.label,
            alias=seat.alias,
            kind=seat.kind,
            status="timeout",
            seconds=seconds,
            error=f"not done by the request's deadline; it still runs, and GET /api/panels/{self.panel} "
            "shows its answer once it ends",
        )

    def every_answer(self, results: Sequence[SeatResult]) -> str:
        """Heading, every seat in seat order, footer: the `all` reply."""
        return self.opening() + "".join([markdown.section(r) for r in results]) + self.footer(results)

    def fallback(self, results: Sequence[SeatResult], note: str) -> str:
        """A merge that could not be had: the note, then every answer (the footer follows)."""
        return markdown.fallback_note(note) + self.opening() + "".join(markdown.section(r) for r in results)

    def footer(self, results: Sequence[SeatResult]) -> str:
        return markdown.footer([r.call for r in results])

    def merged_footer(self, merger: SeatResult, results: Sequence[SeatResult]) -> str:
        return markdown.merged_footer(merger, results)

    def bench(
        self,
        results: Sequence[SeatResult],
        *,
        reply: ReplyMode,
        usage: TokenUsage,
        merger: SeatResult | None = None,
        note: str = "",
        merge_asked: bool = False,
        notes: Sequence[str] = (),
        deadline_s: float | None = None,
    ) -> dict[str, Any]:
        """The `bench` reply field; `reply` and `merger` only when a merge was asked.

        `usage` is the panel's (`panel_usage`): with each seat's, it says which counts are estimates,
        which no API's own usage fields can. `note` is why a merge fell back to every answer;
        `notes` what else the caller should know of how the request was taken (tools left out,
        say). `bench.note` joins them. `deadline_s` is how long the caller's deadline let seats run
        (after the gateway's cap), shown only when the caller set one.
        """
        bench: dict[str, Any] = {
            "panel": self.panel,
            "collection": self.model,
            "shape": self.plan.shape,
            "shape_by": self.plan.shape_by,
            "seats": [r.as_bench() for r in results],
            "usage": usage.as_bench(),
            "verdict": VERDICT_HINT,
        }
        if deadline_s is not None:
            bench["deadline_s"] = deadline_s
        if self.plan.skipped:
            bench["skipped"] = [s.as_dict() for s in self.plan.skipped]
        if merge_asked:
            bench["reply"] = reply
            if merger is not None:
                bench["merger"] = merger.as_bench()
        said = [*notes, note] if merge_asked and note else list(notes)
        if said:
            bench["note"] = "; ".join(said)
        return bench


def panel_usage(results: Sequence[SeatResult], merger: SeatResult | None) -> TokenUsage:
    """Every seat's usage and the merger's call summed: what the panel cost, as replies report it."""
    return sum((r.usage for r in [*results, *([merger] if merger else [])]), TokenUsage())
