"""Names people choose and the model id a caller asks for.

Aliases and collection names end up in URLs, call ids and markdown, so they
are held to short, plain patterns. `parse_model_id` reads the model field of
any API (`bench/core:merged`) into the collection asked for and the reply
mode its suffix names; only the three reply words count as a suffix, so an
unexpected tail stays part of the name and the caller gets a clear 404
rather than a silently different reply.
"""

from __future__ import annotations

import re

from panelgate.core.types import REPLY_MODES, ReplyMode

ALIAS_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{1,63}$")
COLLECTION_RE = re.compile(r"^[a-z0-9][a-z0-9-]{1,31}$")

_PREFIX = "bench/"


def valid_alias(alias: str) -> bool:
    """True when `alias` may name a model on the bench."""
    return ALIAS_RE.fullmatch(alias) is not None


def valid_collection_name(name: str) -> bool:
    """True when `name` may name a collection."""
    return COLLECTION_RE.fullmatch(name) is not None


def _reply_mode(word: str) -> ReplyMode | None:
    for mode in REPLY_MODES:
        if word == mode:
            return mode
    return None


def parse_model_id(model: str) -> tuple[str | None, ReplyMode | None]:
    """`bench/<name>[:all|:merged|:route]` (or the bare name) → (collection, suffix reply).

    An empty model, or a prefix with no name after it, names no collection.
    """
    name = model.strip().removeprefix(_PREFIX)
    head, colon, tail = name.rpartition(":")
    mode = _reply_mode(tail) if colon else None
    if mode is not None:
        name = head
    return (name or None), mode
