"""OpenAI chat completions in route mode: the request passes as sent, the member's chunks come back as sent.

Agents that speak chat completions get exactly what the member streamed —
tool-call deltas, reasoning, usage — with only `model` renamed to the
collection they asked for, then one closing chunk with no choices that
carries `bench`. A whole reply is the completion those chunks add up to.
The request is checked only where the gateway reads it itself: each
message's content, which keys the conversation and sizes the turn.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Sequence
from typing import Any

import orjson

from panelgate.core.errors import BadRequest
from panelgate.core.route import (
    ROUTE_FIELDS_DROPPED,
    RouteBroken,
    RouteEnded,
    RouteEvent,
    RouteRequest,
    RouteStarted,
)
from panelgate.core.types import Heartbeat
from panelgate.formats.request_fields import read_model, read_stream, route_request
from panelgate.formats.route_reply import finished_turn


def _check_content(message: dict[str, Any], index: int) -> None:
    """Content the gateway reads itself (for the conversation's key and size): text, or a list of
    part objects whose text parts hold text; what else a part says is the member's to read."""
    content = message.get("content")
    if content is None or isinstance(content, str):
        return
    if not isinstance(content, list) or not all(isinstance(part, dict) for part in content):
        raise BadRequest(f"messages[{index}].content must be text or a list of parts", param="messages")
    for part in content:
        if part.get("type") == "text" and not isinstance(part.get("text"), str):
            raise BadRequest(f"messages[{index}] has a text part without text", param="messages")


class OpenAIChatRoute:
    def decode_route(self, body: dict[str, Any], *, caller: str) -> RouteRequest:
        model = read_model(body)
        messages = body.get("messages")
        if not isinstance(messages, list) or not messages or not all(isinstance(m, dict) for m in messages):
            raise BadRequest("`messages` must be a non-empty list of message objects", param="messages")
        for index, message in enumerate(messages):
            _check_content(message, index)
        if "functions" in body or "function_call" in body:
            raise BadRequest(
                "legacy `functions`/`function_call` are not supported; send them as `tools`/`tool_choice`",
                param="functions",
            )
        if isinstance(body.get("n"), int) and body["n"] > 1:
            raise BadRequest("route mode gives one answer per turn; leave `n` out or send 1", param="n")
        chat = {k: v for k, v in body.items() if k not in ROUTE_FIELDS_DROPPED}
        return route_request(body, model=model, chat_body=chat, stream=read_stream(body), caller=caller)

    def render_route(self, request: RouteRequest, events: Sequence[RouteEvent]) -> dict[str, Any]:
        started, ended = finished_turn(events)
        message: dict[str, Any] = {"role": "assistant", "content": ended.text or None}
        if ended.reasoning:
            message["reasoning_content"] = ended.reasoning
        if ended.tool_calls:
            message["tool_calls"] = [
                {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                for c in ended.tool_calls
            ]
        reply: dict[str, Any] = {
            "id": f"chatcmpl-{started.call}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": request.model,
            "choices": [{"index": 0, "message": message, "finish_reason": ended.finish_reason or "stop"}],
        }
        usage = ended.usage
        if usage.tokens_in is not None or usage.tokens_out is not None:
            reply["usage"] = {
                "prompt_tokens": usage.tokens_in or 0,
                "completion_tokens": usage.tokens_out or 0,
                "total_tokens": (usage.tokens_in or 0) + (usage.tokens_out or 0),
            }
        reply["bench"] = ended.bench
        return reply

    async def stream_route(
        self, request: RouteRequest, events: AsyncIterator[RouteEvent]
    ) -> AsyncIterator[bytes]:
        chunk_id, created = "chatcmpl-route", int(time.time())
        async for event in events:
            if isinstance(event, RouteStarted):
                chunk_id = f"chatcmpl-{event.call}"
            elif isinstance(event, Heartbeat):
                yield b": keep-alive\n\n"
            elif isinstance(event, RouteBroken):
                error = {"message": event.message, "type": "api_error", "param": None, "code": "502"}
                yield b"data: " + orjson.dumps({"error": error, "bench": event.bench}) + b"\n\n"
                yield b"data: [DONE]\n\n"
                return
            elif isinstance(event, RouteEnded):
                closing = {
                    "id": chunk_id,
                    "object": "chat.completion.chunk",
                    "created": created,
                    "model": request.model,
                    "choices": [],
                    "bench": event.bench,
                }
                yield b"data: " + orjson.dumps(closing) + b"\n\n"
                yield b"data: [DONE]\n\n"
                return
            else:
                yield b"data: " + orjson.dumps(event.chunk) + b"\n\n"
