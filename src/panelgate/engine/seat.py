"""Asking one seat: an upstream call turned into a `SeatResult`.

A seat never raises: whatever goes wrong (a refusal, a timeout, garbage, a
bug of ours) becomes an `error` seat with a one-line reason, so one bad
upstream costs one seat and never the panel.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from panelgate.core.sizing import call_usage
from panelgate.core.types import ChatMessage, ModelInfo, PlannedSeat, SeatResult, SeatStatus
from panelgate.store import EndpointRecord
from panelgate.upstream import Target, UpstreamClient, UpstreamError
from panelgate.upstream.ledger_notes import CallTag

log = logging.getLogger(__name__)

TextSink = Callable[[str], Awaitable[None]]


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
) -> SeatResult:
    """The seat's outcome; an error seat reports zero usage, since a failed call says nothing
    of what it used and an answer's estimate would count tokens never delivered."""
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
    try:
        tag = CallTag("merge" if seat.kind == "merger" else "panel", caller, seat.alias, call)
        reply = await client.chat(target, messages, options, deadline=deadline, on_text=on_text, tag=tag)
    except UpstreamError as exc:
        return result("error", error=f"{exc.kind}: {exc.message}", error_kind=exc.kind)
    except Exception:  # a bug of ours must cost one seat, not the panel
        log.exception("seat %s failed unexpectedly", call)
        return result(
            "error", error="internal error in the gateway while asking this seat", error_kind="gateway"
        )
    status: SeatStatus = "ok" if reply.text.strip() else "empty"
    usage = call_usage(messages, reply.text, reply.tokens_in, reply.tokens_out)
    return result(
        status, answer=reply.text, tokens_in=reply.tokens_in, tokens_out=reply.tokens_out, usage=usage
    )


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
        headers=dict(endpoint.headers or {}),
        served_id=served_id,
    )
