"""Serving a route turn in one inbound format: decode, start, reply whole or streamed.

A route turn's status is known only once a member has answered or every
member has failed, so a whole reply waits for the end and a streamed one
waits up to `OPENING_GRACE_S` for the first piece: a turn that fails before
then keeps its status (429 when every member was rate limited, else 502).
A slower first piece gets the 200 and keep-alives meanwhile; a failure after
that can only be told in the stream. Headers name the conversation and the
member (and, on whole replies, the call to judge), for APIs whose bodies have
no room for `bench`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from starlette.responses import Response

from panelgate.core.errors import error_for_status
from panelgate.core.route import RouteBroken, RouteEnded, RouteEvent, RouteRequest, RouteStarted
from panelgate.core.types import Failed
from panelgate.engine.entry import StartedTurn
from panelgate.engine.route import RouteRun
from panelgate.formats.protocol import ApiAdapter
from panelgate.http.responses import StreamedReply, json_response

OPENING_GRACE_S = 15.0
STREAM_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}


async def answer_route(api: ApiAdapter, started: StartedTurn) -> Response:
    asked, run = started.request, started.run
    headers = {"X-Bench-Conversation": run.conversation}
    if asked.stream:
        opening = await run.opening(OPENING_GRACE_S)
        if isinstance(opening, Failed):
            return _refusal(api, opening, headers)
        if opening is not None:
            headers["X-Bench-Model"] = opening.alias
        return StreamedReply(
            api.stream_route(asked, _stream_events(asked, run, opening)),
            media_type=api.stream_media_type,
            headers={**STREAM_HEADERS, **headers},
        )
    events = await run.collect()
    last = events[-1]
    if isinstance(last, Failed):
        return _refusal(api, last, headers)
    if isinstance(last, RouteBroken):
        return _refusal(api, Failed(502, last.message), headers)
    assert isinstance(last, RouteEnded), "a whole turn ends with RouteEnded, RouteBroken or Failed"
    member = next(e for e in events if isinstance(e, RouteStarted))
    headers["X-Bench-Model"] = member.alias
    headers["X-Bench-Call"] = str(last.bench.get("call", ""))
    turn = [e for e in events if not isinstance(e, Failed)]
    return json_response(api.render_route(asked, turn), 200, headers)


def _refusal(api: ApiAdapter, failed: Failed, headers: dict[str, str]) -> Response:
    refusal = error_for_status(failed.status, failed.message)
    return json_response(api.error_body(refusal), failed.status, headers)


async def _stream_events(
    asked: RouteRequest, run: RouteRun, opening: RouteStarted | None
) -> AsyncIterator[RouteEvent]:
    """The turn's events for a stream that may have begun before any member answered.

    Then the stream opens with a stand-in `RouteStarted` (no member yet) and
    the member's own is not repeated; a refusal after the 200 becomes
    `RouteBroken`, the only way left to tell it.
    """
    yield opening or RouteStarted(run.conversation, f"{run.conversation}.pending", "", "")
    async for event in run.events():
        if isinstance(event, RouteStarted):
            continue
        if isinstance(event, Failed):
            bench = {"collection": asked.model, "reply": "route", "conversation": run.conversation}
            yield RouteBroken(event.message, bench)
            return
        yield event
        if isinstance(event, RouteEnded | RouteBroken):
            return
