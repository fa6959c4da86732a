"""Which members may answer a route turn, in what order, and the conversation a turn belongs to.

Route mode asks one member at a time, so who goes first matters: the member
the record rates best (`route_standing`), members cooling down after a rate limit last, and, for
one new conversation in four, the member the bench has heard from least
recently first, so a member that never gets a turn still gets evidence. A
member that cannot take this turn at all (retired, ad hoc, cannot call the
caller's tools, cannot see its images, too small for it) is named with why.
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from panelgate.core.errors import BadRequest, TooLarge, Unavailable
from panelgate.core.evidence import EvidenceBook
from panelgate.core.seating import CANNOT_SEE, MAKES_IMAGES, NOT_ON_BENCH, VISION_ONLY, retired_reason
from panelgate.core.sizing import fits
from panelgate.core.types import ChatMessage, CollectionInfo, ModelInfo, Skip

ROTATE_EVERY = 4
"""One new conversation in this many starts with the member heard from least recently."""
AD_HOC = "ad hoc: asked only when named"
CANNOT_CALL_TOOLS = "cannot call tools (or not known to); set its `tools` fact to route tool calls to it"


@dataclass(frozen=True)
class TurnFacts:
    """What about a turn decides which members can take it."""

    has_tools: bool
    has_images: bool
    estimate: int
    """Tokens the turn is estimated to take (messages and tool definitions)."""


_ANY_TOOL_TURN = TurnFacts(has_tools=True, has_images=False, estimate=0)


@dataclass(frozen=True)
class RoutePlan:
    order: tuple[str, ...]
    skipped: tuple[Skip, ...]


def route_plan(
    collection: CollectionInfo,
    roster: Mapping[str, ModelInfo],
    facts: TurnFacts,
    *,
    standing: Mapping[str, float],
    last_seen: Mapping[str, datetime],
    rotate: bool,
) -> RoutePlan:
    """The members that can take this turn, best first; raises when none can.

    `standing` is each alias's estimated usefulness (`route_standing`),
    `last_seen` its latest evidence; `rotate` puts the least recently
    heard-from member first.
    """
    if not collection.members:
        raise Unavailable(f"collection `{collection.name}` has no members to route to")
    eligible: list[ModelInfo] = []
    skipped: list[Skip] = []
    for alias in dict.fromkeys(collection.members):
        model = roster.get(alias)
        why = NOT_ON_BENCH if model is None else _cannot_take(model, facts)
        if why is None and model is not None:
            eligible.append(model)
        else:
            skipped.append(Skip("member", alias, why or NOT_ON_BENCH))
    if not eligible:
        raise _nobody(collection, skipped, facts.estimate)
    ranked = sorted(eligible, key=lambda m: (m.cooling_down, -standing.get(m.alias, 0.0)))
    if rotate and len(ranked) > 1:
        stalest = min(
            (m for m in ranked if not m.cooling_down),
            key=lambda m: (m.alias in last_seen, last_seen.get(m.alias) or datetime.min),
            default=None,
        )
        if stalest is not None:
            ranked.remove(stalest)
            ranked.insert(0, stalest)
    return RoutePlan(order=tuple(m.alias for m in ranked), skipped=tuple(skipped))


ROUTE_PRIOR_VERDICTS = 2.0
"""What a member's record on general work weighs against its verdicts in a collection's conversations:
two verdicts' worth. Answering in an agent's tool loop is work of its own, so a few route verdicts
should soon outweigh how the model does on panels."""


def route_standing(
    book: EvidenceBook, judged: Mapping[str, tuple[int, int]], aliases: Iterable[str]
) -> dict[str, float]:
    """Each member's estimated usefulness in this collection's conversations: the posterior mean of
    its (useful, judged) verdicts there (`judged`), over a prior at its estimate on general work."""
    standing: dict[str, float] = {}
    for alias in aliases:
        start = book.posterior(alias, "general").mean
        useful, total = judged.get(alias, (0, 0))
        standing[alias] = (ROUTE_PRIOR_VERDICTS * start + useful) / (ROUTE_PRIOR_VERDICTS + total)
    return standing


def calls_tools(collection: CollectionInfo, roster: Mapping[str, ModelInfo]) -> bool:
    """Some member that may be routed to can call tools (its `tools` fact is true)."""
    return any(
        model is not None and model.tools is True and _cannot_take(model, _ANY_TOOL_TURN) is None
        for model in (roster.get(alias) for alias in collection.members)
    )


def _cannot_take(model: ModelInfo, facts: TurnFacts) -> str | None:
    if model.retired:
        return retired_reason(model)
    if model.held:
        return model.held
    if model.ad_hoc:
        return AD_HOC
    if model.role == "image":
        return MAKES_IMAGES
    if facts.has_tools and model.tools is not True:
        return CANNOT_CALL_TOOLS
    if facts.has_images and model.vision is not True:
        return CANNOT_SEE
    if not facts.has_images and model.role == "vision":
        return VISION_ONLY
    if not fits(model, facts.estimate):
        window = model.context_window or 0
        return f"context window {window:,} is smaller than the turn (about {facts.estimate:,} tokens)"
    return None


def _nobody(collection: CollectionInfo, skipped: Sequence[Skip], estimate: int) -> Exception:
    reasons = "; ".join(f"`{s.alias}`: {s.why}" for s in skipped)
    if skipped and all(s.why.startswith("context window") for s in skipped):
        return TooLarge(
            f"the turn is about {estimate:,} tokens, larger than every member of `{collection.name}` "
            f"can take ({reasons})"
        )
    return BadRequest(f"no member of `{collection.name}` can take this turn: {reasons}", param="model")


def conversation_key(
    collection: str, caller: str, messages: Sequence[ChatMessage], session: str | None = None
) -> str:
    """The same for every turn of one agent conversation, whatever API it speaks.

    A client that names its session is keyed by it. Otherwise the key is the
    leading system text and the first user message (system entries later in
    the conversation come and go between turns), so a side request with its
    own system prompt (a title generator, say) is a conversation of its own.
    """
    if session is not None:
        parts: tuple[str, ...] = (collection, caller, "session", session)
    else:
        leading = itertools.takewhile(lambda m: m.get("role") in ("system", "developer"), messages)
        first_user = next((_text(m) for m in messages if m.get("role") == "user"), "")
        parts = (collection, caller, "\n".join(_text(m) for m in leading), first_user)
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part.encode())
        digest.update(b"\x00")
    return digest.hexdigest()[:32]


def _text(message: ChatMessage) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            part.get("text", "") for part in content if isinstance(part, dict) and part.get("type") == "text"
        )
    return ""
