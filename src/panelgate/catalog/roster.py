"""The roster as seating reads it: each model's merged facts, and whether it is held.

The bench's own rows carry what a person set; seating must also know what
the catalogs, the listing and learned refusals say (a window learned from a
refusal refuses an oversized prompt before it is sent) and which models the
price watch holds. The store's bench view passes every read of the roster
through `with_facts` (wired in the app), and re-reads when a catalog write
bumps the config version, so every gateway process sees the same facts.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from panelgate.catalog.known import gather, subject
from panelgate.catalog.merge import Merged
from panelgate.catalog.price_watch import held_reason
from panelgate.core.types import ModelInfo
from panelgate.store import Database, EndpointRecord


async def with_facts(
    db: Database, roster: dict[str, ModelInfo], endpoints: Mapping[str, EndpointRecord]
) -> dict[str, ModelInfo]:
    subjects = [
        subject(
            info.model_id,
            alias,
            info.served_id,
            info.endpoint,
            endpoints,
            {
                "context_window": info.context_window,
                "max_output": info.max_output,
                "vision": info.vision,
                "tools": info.tools,
            },
        )
        for alias, info in roster.items()
        if info.model_id is not None
    ]
    found = await gather(db, subjects)
    holds = await db.facts.holds()
    merged = {}
    for alias, info in roster.items():
        findings = found.get(info.model_id) if info.model_id is not None else None
        if findings is None:
            merged[alias] = info
            continue
        facts = findings.merged
        hold = holds.get(info.model_id) if info.model_id is not None else None
        merged[alias] = replace(
            info,
            context_window=_count(facts["context_window"]),
            max_output=_count(facts["max_output"]),
            vision=_flag(facts["vision"]),
            tools=_flag(facts["tools"]),
            held=held_reason(hold) if hold is not None and hold.state == "held" else "",
        )
    return merged


def _count(merged: Merged) -> int | None:
    value = merged.value
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _flag(merged: Merged) -> bool | None:
    value = merged.value
    return value if isinstance(value, bool) else None
