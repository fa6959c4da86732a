"""What every route format reads off a turn that ended, to write its reply.

A whole reply is rendered from the turn's events once it ended: the start
names the call (the reply's id), the end holds what the member said and its
usage. Members do not all send token counts, and a caller's client still
wants some, so each format reports the member's own counts when it sent
them, else the gateway's estimate of the prompt and of everything the member
said (text and tool-call arguments). Reading both here keeps the formats
from disagreeing on them.
"""

from __future__ import annotations

from collections.abc import Sequence

from panelgate.core.route import RouteEnded, RouteEvent, RouteRequest, RouteStarted
from panelgate.core.sizing import estimate_tokens


def finished_turn(events: Sequence[RouteEvent]) -> tuple[RouteStarted, RouteEnded]:
    """The start and the end of a turn that ended (`render_route` is only called on one)."""
    ended = events[-1]
    assert isinstance(ended, RouteEnded), "render_route is only called on a turn that ended"
    return next(e for e in events if isinstance(e, RouteStarted)), ended


def turn_counts(request: RouteRequest, ended: RouteEnded) -> tuple[int, int]:
    """Prompt and answer tokens: the member's own counts, else the gateway's estimate."""
    usage = ended.usage
    prompt = usage.tokens_in if usage.tokens_in is not None else estimate_tokens(request.messages)
    if usage.tokens_out is not None:
        return prompt, usage.tokens_out
    said = ended.text + "".join(call.arguments for call in ended.tool_calls)
    return prompt, estimate_tokens([{"role": "assistant", "content": said}])
