"""Asking one seat: an upstream call turned into a `SeatResult`.

A seat never raises: whatever goes wrong (a refusal, a timeout, garbage, a
bug of ours) becomes an `error` seat with a one-line reason, so one bad
upstream costs one seat and never the panel.

Three things providers do to an answer are read here, each switched by a
gateway setting (`GatewayLimits`): a 200 whose whole answer is a quota or
credit notice fails as that notice would as an error status
(`detect_quota_notices`, read by the client so the ledger and health see a
failure); an empty answer cut at the token limit is asked once more with
twice the output budget, within the same deadline (`retry_empty_length`);
and a reply naming another model than the one asked is kept as the seat's
`served_as` (`core.served_model`; always kept, only its alert can be off).
A panel's seats reach the caller whole, so asking again shows nothing
twice; the merger streams, but an empty answer streamed no text.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from panelgate.core.output_budget import doubled_budget
from panelgate.core.served_model import served_as
from panelgate.core.sizing import call_usage
from panelgate.core.types import (
    ChatMessage,
    GatewayLimits,
    ModelInfo,
    PlannedSeat,
    SeatResult,
    SeatStatus,
)
from panelgate.store import EndpointRecord
from panelgate.upstream import ChatResult, Target, UpstreamClient, UpstreamError
from panelgate.upstream.ledger_notes import CallTag

log = logging.getLogger(__name__)

TextSink = Callable[[str], Awaitable[None]]
DEFAULT_LIMITS = GatewayLimits()


async def ask_seat(
    client: UpstreamClient,
    *,
    call: str,
    seat: PlannedSeat,
    target: Target | None,
    messages: list[ChatMessage],
    options: dict[str, Any],
    deadline: float,
    caller: str,
    on_text: TextSink | None = None,
    limits: GatewayLimits = DEFAULT_LIMITS,
    max_output: int | None = None,
) -> SeatResult:
    """The seat's outcome; an error seat reports zero usage, since a failed call says nothing
    of what it used and an answer's estimate would count tokens never delivered. `limits` switch
    the provider quirks above; `max_output` caps a doubled budget (None: the model's is unknown)."""
    started = time.monotonic()

    def result(status: SeatStatus, answer: str = "", error: str = "", **counts: Any) -> SeatResult:
        return SeatResult(
            call=call,
            label=seat.label,
            alias=seat.alias,
            kind=seat.kind,
            status=status,
            seconds=time.monotonic() - started,
            answer=answer,
            error=error,
            **counts,
        )

    if target is None:
        return result("error", error="its endpoint is not configured any more", error_kind="structural")
    tag = CallTag("merge" if seat.kind == "merger" else "panel", caller, seat.alias, call)

    async def ask(sent: dict[str, Any]) -> ChatResult:
        return await client.chat(
            target, messages, sent, deadline=deadline, on_text=on_text, tag=tag,
            notices=limits.detect_quota_notices,
        )  # fmt: skip

    try:
        replies, attempts, error = [await ask(options)], 1, ""
        bigger = doubled_budget(options, max_output) if _cut_empty(replies[0], limits) else None
        if bigger is not None:
            attempts = 2
            try:
                replies.append(await ask(bigger))
            except UpstreamError as exc:  # the first, empty answer stands
                error = f"asked again with twice the output budget: {exc.kind}: {exc.message}"
    except UpstreamError as exc:
        return result("error", error=f"{exc.kind}: {exc.message}", error_kind=exc.kind)
    except Exception:  # a bug of ours must cost one seat, not the panel
        log.exception("seat %s failed unexpectedly", call)
        return result(
            "error", error="internal error in the gateway while asking this seat", error_kind="gateway"
        )
    reply = replies[-1]
    status: SeatStatus = "ok" if reply.text.strip() else "empty"
    tokens_in, tokens_out = reply.tokens_in, reply.tokens_out
    if len(replies) > 1:  # both attempts were spent
        tokens_in = _summed(replies[0].tokens_in, tokens_in)
        tokens_out = _summed(replies[0].tokens_out, tokens_out)
    return result(
        status,
        answer=reply.text,
        error="" if status == "ok" else error,
        tokens_in=tokens_in,
        tokens_out=tokens_out,
        usage=call_usage(messages, reply.text, tokens_in, tokens_out),
        served_as=served_as(target.served_id, reply.model),
        attempts=attempts,
    )


def _cut_empty(reply: ChatResult, limits: GatewayLimits) -> bool:
    """An answer with no text (and no tool call) that ended at the token limit, when asking again is on."""
    return (
        limits.retry_empty_length
        and reply.finish_reason == "length"
        and not reply.text.strip()
        and not reply.tool_calls
    )


def _summed(first: int | None, second: int | None) -> int | None:
    """Two attempts' token counts added up; None when either did not say."""
    return None if first is None or second is None else first + second


def target_for(model: ModelInfo, endpoints: Mapping[str, EndpointRecord]) -> Target | None:
    """Where a model is served, or None when its endpoint is gone."""
    endpoint = endpoints.get(model.endpoint)
    return None if endpoint is None else target_at(endpoint, model.served_id)


def target_at(endpoint: EndpointRecord, served_id: str) -> Target:
    """Where the model `served_id` is called on `endpoint`."""
    return Target(
        endpoint=endpoint.name,
        base_url=endpoint.base_url,
        api=endpoint.api,
        key_name=endpoint.key_name,
        header_keys=endpoint.header_keys,
        served_id=served_id,
    )
