"""What a model listing says about each collection.

Every collection is listed three times — as configured and in each other
reply mode — because many clients only let a person pick a listed model.
`together` says what the members have in common: the smallest known context
window (the largest prompt every member takes), the members whose window is
unknown, and the capabilities all of them share.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from panelgate.core.types import REPLY_MODES, CollectionInfo, GatewayLimits, ModelInfo, ReplyMode
from panelgate.store import Database


def together(collection: CollectionInfo, roster: Mapping[str, ModelInfo]) -> dict[str, Any]:
    members = [roster[a] for a in collection.members if a in roster and not roster[a].retired]
    windows = [m.context_window for m in members if m.context_window]
    capabilities = [
        cap for cap in ("vision", "tools") if members and all(getattr(m, cap) is True for m in members)
    ]
    return {
        "context_window": min(windows) if windows else None,
        "context_unknown": [m.alias for m in members if not m.context_window],
        "capabilities": capabilities,
        "connections": sorted({m.endpoint for m in members}),
        "limits": {},
    }


def describe(
    collection: CollectionInfo, roster: Mapping[str, ModelInfo], limits: GatewayLimits
) -> dict[str, Any]:
    sitting = [a for a in collection.members if a in roster and not roster[a].retired]
    return {
        "description": collection.description,
        "tags": list(collection.tags),
        "members": list(collection.members),
        "shape": collection.shape,
        "explorers": max(0, min(limits.max_explorers, limits.max_calls - len(sitting))),
        "merger": collection.merger,
        "together": together(collection, roster),
    }


def listing_ids(collection: CollectionInfo) -> list[tuple[str, ReplyMode]]:
    """(model id, reply mode) for a collection: as configured first, then the other modes."""
    others = [m for m in REPLY_MODES if m != collection.reply]
    return [(f"bench/{collection.name}", collection.reply)] + [
        (f"bench/{collection.name}:{mode}", mode) for mode in others
    ]


async def list_collections(db: Database, only: Collection[str] | None = None) -> list[dict[str, Any]]:
    """One entry per (collection, reply mode): `id`, `reply` and the description; `only` names the
    collections to list (None: all)."""
    bench = await db.bench.snapshot()
    entries = []
    for collection in sorted(bench.collections.values(), key=lambda c: c.name):
        if only is not None and collection.name not in only:
            continue
        described = describe(collection, bench.roster, bench.limits)
        entries += [
            {"id": model_id, "reply": mode, **described} for model_id, mode in listing_ids(collection)
        ]
    return entries
