"""OpenAI legacy completions in route mode: one prompt, answered by one member.

The prompt becomes one user message, read as the panel adapter reads it
(one string, or a list of one). A chat member answers, so what only a raw
completion model could do is refused rather than quietly not done: `suffix`
(fill in the middle), `echo`, `logprobs`, several answers (`n`, `best_of`)
and `logit_bias` (token ids mean different words to different members).
The reply is a `text_completion`, with `bench` where the panel adapter puts
it: in the body, and on the last chunk of a stream.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Sequence
from typing import Any

import orjson

from panelgate.core.errors import BadRequest
from panelgate.core.route import RouteBroken, RouteChunk, RouteEnded, RouteEvent, RouteRequest, RouteStarted
from panelgate.core.sizing import estimate_tokens
from panelgate.core.turn import TextPiece
from panelgate.core.types import Heartbeat
from panelgate.formats.completions.panel import (
    completion_choice,
    completion_error,
    prompt_messages,
    read_options,
    refuse_suffix,
)
from panelgate.formats.request_fields import read_model, read_stream, route_request
from panelgate.formats.route_reply import finished_turn

BROKEN_STATUS = 502
"""A member that failed part way is a bad gateway, as the SDK reads a stream's error."""

_FINISH = frozenset({"stop", "length", "content_filter"})
_ONE_ANSWER = "route mode asks one member for one answer; send several requests for several"


def _refuse_what_a_chat_member_cannot_do(body: dict[str, Any]) -> None:
    refuse_suffix(body)
    if body.get("echo"):
        raise BadRequest(
            "`echo` returns the prompt with the answer, which a chat member does not; "
            "put the prompt before the answer yourself",
            param="echo",
        )
    if body.get("logprobs") is not None:
        raise BadRequest(
            "log probabilities are not relayed in route mode; leave `logprobs` out", param="logprobs"
        )
    for name in ("n", "best_of"):
        if isinstance(count := body.get(name), int) and count > 1:
            raise BadRequest(f"`{name}` is {count}; {_ONE_ANSWER}", param=name)
    if body.get("logit_bias"):
        raise BadRequest(
            "`logit_bias` names token ids, which mean different words to different members; leave it out",
            param="logit_bias",
        )


def _usage(request: RouteRequest, ended: RouteEnded) -> dict[str, int]:
    """The member's own counts when it sent them, else the gateway's estimate."""
    usage = ended.usage
    prompt = usage.tokens_in if usage.tokens_in is not None else estimate_tokens(request.messages)
    answer = usage.tokens_out
    if answer is None:
        answer = estimate_tokens([{"role": "assistant", "content": ended.text}])
    return {"prompt_tokens": prompt, "completion_tokens": answer, "total_tokens": prompt + answer}


def _finish(reason: str | None) -> str:
    return reason if reason in _FINISH else "stop"


def _text(chunk: RouteChunk) -> str:
    return "".join(piece.text for piece in chunk.pieces if isinstance(piece, TextPiece))


def _sse(body: dict[str, Any]) -> bytes:
    return b"data: " + orjson.dumps(body) + b"\n\n"


class CompletionsRoute:
    """`POST /v1/completions` in route mode."""

    name = "openai-completions"
    stream_media_type = "text/event-stream"

    def decode_route(self, body: dict[str, Any], *, caller: str) -> RouteRequest:
        model = read_model(body)
        _refuse_what_a_chat_member_cannot_do(body)
        chat = {"messages": prompt_messages(body), **read_options(body)}
        return route_request(body, model=model, chat_body=chat, stream=read_stream(body), caller=caller)

    def render_route(self, request: RouteRequest, events: Sequence[RouteEvent]) -> dict[str, Any]:
        started, ended = finished_turn(events)
        return {
            "id": f"cmpl-{started.call}",
            "object": "text_completion",
            "created": int(time.time()),
            "model": request.model,
            "choices": [completion_choice(ended.text, _finish(ended.finish_reason))],
            "usage": _usage(request, ended),
            "bench": ended.bench,
        }

    async def stream_route(
        self, request: RouteRequest, events: AsyncIterator[RouteEvent]
    ) -> AsyncIterator[bytes]:
        chunk_id, created = "cmpl-", int(time.time())

        def chunk(text: str, finish: str | None = None, **extra: Any) -> bytes:
            return _sse(
                {
                    "id": chunk_id,
                    "object": "text_completion",
                    "created": created,
                    "model": request.model,
                    "choices": [completion_choice(text, finish)],
                    **extra,
                }
            )

        async for event in events:
            if isinstance(event, Heartbeat):
                yield b": keep-alive\n\n"
            elif isinstance(event, RouteStarted):
                chunk_id = f"cmpl-{event.call}"
            elif isinstance(event, RouteBroken):
                yield _sse(completion_error(BROKEN_STATUS, event.message, "api_error"))
                yield b"data: [DONE]\n\n"
                return
            elif isinstance(event, RouteEnded):
                finish = _finish(event.finish_reason)
                yield chunk("", finish, usage=_usage(request, event), bench=event.bench)
                yield b"data: [DONE]\n\n"
                return
            elif isinstance(event, RouteChunk) and (text := _text(event)):
                yield chunk(text)
