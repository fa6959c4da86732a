"""The merged reply: one more seat that writes a single answer from the panel's.

The merge must never cost the caller the panel: when no seat answered, no
merger has the context window for the request plus the answers, or the
merger fails, the reply falls back to every answer with a one-line note
saying why. The too-small case is decided before calling anyone, so no call
is spent on a merge that cannot fit.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from panelgate.core.call_options import call_options
from panelgate.core.ids import call_id
from panelgate.core.merge import merge_estimate, merge_messages, merger_candidates
from panelgate.core.types import (
    ChatMessage,
    CollectionInfo,
    GatewayLimits,
    ModelInfo,
    PlannedSeat,
    SeatResult,
)
from panelgate.engine.seat import DEFAULT_LIMITS, ask_seat, target_for
from panelgate.store import EndpointRecord
from panelgate.upstream import UpstreamClient


@dataclass(frozen=True)
class MergeOutcome:
    result: SeatResult | None
    note: str = ""


async def run_merge(
    client: UpstreamClient,
    *,
    panel: str,
    collection: CollectionInfo,
    sitting_members: Sequence[str],
    roster: Mapping[str, ModelInfo],
    endpoints: Mapping[str, EndpointRecord],
    standing: Mapping[str, float],
    messages: list[ChatMessage],
    options: dict[str, Any],
    results: Sequence[SeatResult],
    deadline: float,
    caller: str,
    on_text: Callable[[str], Awaitable[None]],
    limits: GatewayLimits = DEFAULT_LIMITS,
) -> MergeOutcome:
    """`options` are the caller's: the merger is sent them as a seat is (`core.call_options`), and
    `limits` switch the provider quirks a seat reads (`engine.seat`)."""
    answered = [r for r in results if r.status == "ok"]
    if not answered:
        return MergeOutcome(None, "no seat answered, so there was nothing to merge")
    candidates = merger_candidates(
        collection=collection, sitting_members=sitting_members, roster=roster, standing=standing
    )
    if not candidates:
        return MergeOutcome(None, "no merger is available (the collection's merger and members are gone)")
    needed = merge_estimate(messages, answered)
    fitting = [a for a in candidates if (roster[a].context_window or needed) >= needed]
    if not fitting:
        windows = ", ".join(f"{a} ({roster[a].context_window:,})" for a in candidates)
        return MergeOutcome(
            None, f"no merger has the context window for the merge (about {needed:,} tokens; {windows})"
        )
    alias = fitting[0]
    seat = PlannedSeat(label="merger", suffix="merger", alias=alias, kind="merger")
    result = await ask_seat(
        client,
        call=call_id(panel, "merger"),
        seat=seat,
        target=target_for(roster[alias], endpoints),
        messages=merge_messages(messages, answered),
        options=call_options(options, roster[alias]),
        deadline=deadline,
        caller=caller,
        on_text=on_text,
        limits=limits,
        max_output=roster[alias].max_output,
    )
    if result.status == "ok":
        return MergeOutcome(result)
    why = result.error or "it returned no text"
    return MergeOutcome(result, f"the merger {alias} failed ({why})")
