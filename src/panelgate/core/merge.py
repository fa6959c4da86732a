"""What the merger is asked and who merges.

A merged reply is one more call after the panel: the merger reads the request
and every good answer and writes one answer that keeps the panel's
disagreements visible, because a smooth summary that hides dissent is worse
than reading every answer. The merger is the collection's named one, else
the sitting member with the best verdicts on this shape, else the first
member; the engine takes the first candidate whose window fits the merge.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from panelgate.core.seating import MAKES_IMAGES, NOT_ON_BENCH, retired_reason
from panelgate.core.sizing import estimate_tokens, readable_text
from panelgate.core.types import ChatMessage, CollectionInfo, ModelInfo, SeatResult, Skip

MERGE_SYSTEM = """\
Several models (a panel) answered the same request. You get THE REQUEST and \
THE ANSWERS, each answer under a heading naming its seat and model. Write one \
reply to the request from those answers:
- State what the answers agree on, once.
- State where they disagree, and who said what, naming the seat and model \
(for example "member — m1").
- Keep dissent: a point only one seat made stays in, attributed to it. Do not \
settle a disagreement by counting votes; if the answers themselves show who is \
right, say so and why, otherwise leave it open.
- Invent nothing: no fact, code or claim that no answer made. If something the \
request needs is missing from every answer, say it is missing.
Reply in the language and format the request asks for."""


def _request_text(request_messages: Sequence[ChatMessage]) -> str:
    turns = ((str(m.get("role", "user")), readable_text(m).strip()) for m in request_messages)
    return "\n\n".join(f"{role}: {text}" for role, text in turns if text)


def _answers_text(results: Sequence[SeatResult]) -> str:
    return "\n\n".join(f"## {r.label} — {r.alias}\n\n{r.answer.strip()}" for r in results if r.status == "ok")


def merge_messages(
    request_messages: Sequence[ChatMessage], results: Sequence[SeatResult]
) -> list[ChatMessage]:
    """The merger's conversation: the merge instructions, then the request and the ok answers.

    Images in the request become `[image]`: the merger reads answers, not pictures."""
    user = f"THE REQUEST\n\n{_request_text(request_messages)}\n\nTHE ANSWERS\n\n{_answers_text(results)}"
    return [{"role": "system", "content": MERGE_SYSTEM}, {"role": "user", "content": user}]


def merge_estimate(request_messages: Sequence[ChatMessage], results: Sequence[SeatResult]) -> int:
    """How big the merge call is, in the same estimate seating uses."""
    return estimate_tokens(merge_messages(request_messages, results))


def _can_merge(model: ModelInfo | None) -> bool:
    return model is not None and not model.retired and not model.held and model.role != "image"


def merger_candidates(
    *,
    collection: CollectionInfo,
    sitting_members: Sequence[str],
    roster: Mapping[str, ModelInfo],
    standing: Mapping[str, float],
) -> list[str]:
    """Who may merge, best first. `standing` is alias → the record's estimate of its usefulness on
    the panel's shape (the posterior mean, `core/evidence.py`).

    The collection's merger alone when it can merge; else the sitting members
    by that estimate, highest first (members the record says nothing of keep
    their order, after the others).
    """
    if collection.merger and _can_merge(roster.get(collection.merger)):
        return [collection.merger]
    members = [alias for alias in dict.fromkeys(sitting_members) if _can_merge(roster.get(alias))]
    return sorted(members, key=lambda alias: -standing.get(alias, -1.0))


def merger_skip(collection: CollectionInfo, roster: Mapping[str, ModelInfo]) -> Skip | None:
    """The collection's named merger, when it cannot merge, and why."""
    if not collection.merger:
        return None
    model = roster.get(collection.merger)
    if model is None:
        return Skip("merger", collection.merger, NOT_ON_BENCH)
    if model.retired:
        return Skip("merger", collection.merger, retired_reason(model))
    if model.held:
        return Skip("merger", collection.merger, model.held)
    if model.role == "image":
        return Skip("merger", collection.merger, MAKES_IMAGES)
    return None
