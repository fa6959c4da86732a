"""Deciding a panel's shape before its explorers are chosen: the rules, or the decision model.

The order (SPEC §2): the collection's shape; else `vision` when the request
carries images (both decided inside `seat_panel`); else, when explorer
seats are to be filled by shape, the gateway's decision model if it names
one; else the shape rules (core/shape_rules.py), which cost nothing.

The decision model is a cheap bench model asked one short question under a
3-second deadline, one attempt, never retried into a rate limit: a panel
must not wait on it. Whatever goes wrong (it is cooling down, fails, is
slow, or answers anything but one shape word) the rules' shape stands, so
a bad decision model costs at most three seconds and never a panel. Its
calls are in the usage ledger with purpose `shape`.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections.abc import Callable, Mapping
from typing import Any

from panelgate.core.errors import GatewayError
from panelgate.core.shape_rules import DECIDABLE_SHAPES, read_ask, shape_by_rules
from panelgate.core.turn import TurnReader
from panelgate.core.types import GatewayLimits, ModelInfo, PanelRequest, SeatPlan, Shape
from panelgate.engine.seat import target_for
from panelgate.store import EndpointRecord
from panelgate.upstream import UpstreamClient, UpstreamError
from panelgate.upstream.ledger_notes import CallTag

log = logging.getLogger(__name__)

DEADLINE_S = 3.0
"""The longest a panel waits for its decision model before the rules decide."""
ASK_CHARS = 4000
"""How much of the person's ask the decision model reads (its opening)."""
SHAPE_WORDS = {
    "general": "anything that fits nothing below",
    "design": "architecture, system or API design, schemas, trade-offs between approaches",
    "prose": "a piece of writing: an essay, article, story, letter, or a rewrite of a text",
    "review": "code or a diff to review, check or find bugs in",
    "code": "code to write, change, explain or fix",
    "enumeration": "a list of every item of some kind",
    "quick": "a short question with a short answer",
}
QUESTION = (
    "Sort the request below by the kind of work it asks for. Answer with exactly one word from this "
    "list and nothing else:\n" + "\n".join(f"- {shape}: {SHAPE_WORDS[shape]}" for shape in DECIDABLE_SHAPES)
)
_ONE_WORD = re.compile(r"[a-z]+")

SeatWithShape = Callable[[tuple[Shape, str]], SeatPlan]
"""Seats the panel with a decided shape and who decided it (`seat_panel` with all else fixed)."""


def shape_question(request: PanelRequest) -> dict[str, Any]:
    """The decision model's question: an OpenAI chat body (no `model`)."""
    ask = read_ask(request.messages).text[:ASK_CHARS]
    return {
        "messages": [
            {"role": "system", "content": QUESTION},
            {"role": "user", "content": f"The request:\n\n{ask}\n\nOne word:"},
        ],
        "max_tokens": 32,
        "temperature": 0,
    }


def shape_named(answer: str) -> Shape | None:
    """The shape a reply names when it is one shape word (case, quotes and a full stop aside)."""
    word = answer.strip().strip("`'\"*_.: \n").lower()
    if _ONE_WORD.fullmatch(word) is None:
        return None
    return next((shape for shape in DECIDABLE_SHAPES if shape == word), None)


async def ask_decision_model(
    client: UpstreamClient,
    model: ModelInfo,
    endpoints: Mapping[str, EndpointRecord],
    request: PanelRequest,
    *,
    deadline_s: float = DEADLINE_S,
) -> Shape | None:
    """The shape `model` names for the request, or None when it cannot say in time."""
    target = target_for(model, endpoints)
    if target is None:
        return None
    reader = TurnReader()

    async def take(chunk: dict[str, Any]) -> None:
        reader.feed(chunk)

    tag = CallTag("shape", request.caller, model.alias)
    deadline = time.monotonic() + deadline_s
    try:
        async with asyncio.timeout(deadline_s + 0.25):  # the client keeps the deadline; this is a backstop
            await client.relay(
                target, shape_question(request), deadline=deadline, on_chunk=take, retries=False, tag=tag
            )
    except (UpstreamError, TimeoutError) as failed:
        log.info("decision model %s gave no shape: %s", model.alias, getattr(failed, "kind", "timeout"))
        return None
    except Exception:  # a bug of ours must cost the shape, not the panel
        log.exception("asking decision model %s failed unexpectedly", model.alias)
        return None
    shape = shape_named(reader.text)
    if shape is None:
        log.info("decision model %s answered something other than a shape word", model.alias)
    return shape


def _explorers_by_shape(plan: SeatPlan, request: PanelRequest) -> bool:
    """Some explorer seat went to a model chosen by shape (not one the caller nominated)."""
    return any(seat.kind == "explorer" and seat.alias not in request.nominees for seat in plan.seats)


def _decision_model(limits: GatewayLimits, roster: Mapping[str, ModelInfo]) -> ModelInfo | None:
    """The gateway's decision model when it can be asked now."""
    model = roster.get(limits.decision_model) if limits.decision_model else None
    if model is None or model.retired or not model.available or model.cooling_down:
        return None
    return None if model.held or model.role == "image" else model


async def seat_by_shape(
    seat: SeatWithShape,
    client: UpstreamClient,
    *,
    request: PanelRequest,
    limits: GatewayLimits,
    roster: Mapping[str, ModelInfo],
    endpoints: Mapping[str, EndpointRecord],
) -> SeatPlan:
    """Seat the panel with the rules' shape, then with the decision model's when it names one.

    `seat_panel` keeps the collection's shape and images first (`shape_by`
    then says so); only when the rules' shape chose explorers is the
    decision model asked, and the panel re-seated with its answer.
    """
    plan = seat((shape_by_rules(request.messages), "rules"))
    model = _decision_model(limits, roster)
    if plan.shape_by != "rules" or model is None or not _explorers_by_shape(plan, request):
        return plan
    shape = await ask_decision_model(client, model, endpoints, request)
    if shape is None:
        return plan
    try:
        return seat((shape, "model"))
    except GatewayError:  # nobody can sit on a panel of that shape: the rules' seating stands
        return plan
