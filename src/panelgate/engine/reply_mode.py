"""Which reply a request gets: the body's `bench.reply`, else the model id's suffix, else the collection's.

The HTTP layer must know before it reads a request in full, because a route
turn is read differently from a panel (tools pass to the member instead of
being refused).
"""

from __future__ import annotations

from panelgate.core.naming import parse_model_id
from panelgate.core.types import ReplyMode
from panelgate.store import Database


async def reply_mode(db: Database, model: str, body_reply: ReplyMode | None) -> ReplyMode | None:
    """The reply mode asked for; None when the collection is unknown (the panel path says so)."""
    collection, suffix = parse_model_id(model)
    if body_reply is not None:
        return body_reply
    if suffix is not None:
        return suffix
    found = (await db.bench.snapshot()).collections.get(collection or "")
    return None if found is None else found.reply
