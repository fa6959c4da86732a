"""A real Anthropic Messages server on 127.0.0.1 for tests: what a member on `api: anthropic` calls.

It is `FakeUpstream` (its server thread, event loop, keep-alive HTTP/1.1
plumbing, `behave`, `requests`, `requests_for` and `reset`) answering
`POST /v1/messages` in Anthropic's own words, so the adapter is proven
against bytes shaped like the real service's, through real sockets::

    with FakeAnthropic() as upstream:
        upstream.behave("claude-x", answer="hello", chunks=2,
                        tool_calls=[{"name": "lookup", "arguments": {"q": "x"}}])
        ...POST f"{upstream.url}/messages"...
        assert upstream.requests_for("claude-x")[0].headers["anthropic-version"] == "2023-06-01"

A reply is an event stream: `message_start`; a `thinking` block when
`reasoning` is set; a `text` block with the answer in `chunks` deltas (a
`ping` after the first); one `tool_use` block per tool call, its input JSON
split into `argument_pieces` `input_json_delta`s (at least 3); then
`message_delta` with the stop reason (`tool_use` with tool calls, else
`end_turn`; `finish_reason` overrides it, in Anthropic's words such as
`max_tokens`) and the output tokens, and `message_stop`.

Behaviour fields it acts on: answer, chunks, delay, chunk_delay, status,
error_message, retry_after, fail_times, reset_after, error_after (an `error`
event, `overloaded_error` unless `status` names another), empty, usage,
reasoning, tool_calls, argument_pieces, finish_reason, require_key (checked
against `x-api-key`, as the server-wide `require_key` is). `behave` refuses
the rest rather than ignoring them.

Like the real service it answers 400 `invalid_request_error` to a request
without a positive `max_tokens`, without `stream: true` (this fake only
streams), or whose messages are not user/assistant turns that alternate.
Other routes are `FakeUpstream`'s.
"""

from __future__ import annotations

import asyncio
import itertools
import math
from typing import Any

import orjson

from tests.support.upstream import (
    _DEFAULT_ERRORS,
    FakeUpstream,
    _Call,
    _Request,
    _reset,
    _send,
    _send_head,
)

_UNSUPPORTED = frozenset({"hang", "garbage", "reject_stream_options", "plain_json", "redirect_to", "company"})
_ERROR_TYPES = {
    400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
    404: "not_found_error", 413: "request_too_large", 429: "rate_limit_error", 500: "api_error",
    529: "overloaded_error",
}  # fmt: skip
_MIN_ARGUMENT_PIECES = 3


class FakeAnthropic(FakeUpstream):
    def behave(self, model: str, **behaviour: Any) -> None:
        if unsupported := sorted(_UNSUPPORTED & set(behaviour)):
            raise ValueError(f"FakeAnthropic does not act on {', '.join(unsupported)}")
        super().behave(model, **behaviour)

    def _authorized(self, request: _Request) -> bool:
        return self.require_key is None or request.headers.get("x-api-key") == self.require_key

    async def _answer(
        self, request: _Request, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> bool:
        if request.method == "POST" and request.path == "/v1/messages":
            return await self._messages(request, writer)
        return await super()._answer(request, reader, writer)

    async def _messages(self, request: _Request, writer: asyncio.StreamWriter) -> bool:
        try:
            body = orjson.loads(request.raw_body)
        except orjson.JSONDecodeError:
            await _send_error(writer, 400, "the body is not JSON")
            return True
        call = self._take_call(request, body if isinstance(body, dict) else {})
        wanted = call.behaviour.require_key
        if not self._authorized(request) or (
            wanted is not None and request.headers.get("x-api-key") != wanted
        ):
            await _send_error(writer, 401, "invalid x-api-key")
            return True
        if (invalid := _invalid(call.body)) is not None:
            await _send_error(writer, 400, invalid)
            return True
        if call.failing:
            status = call.behaviour.status or 500
            message = call.behaviour.error_message or _DEFAULT_ERRORS.get(status, f"error {status}")
            after = call.behaviour.retry_after
            await _send_error(writer, status, message, {} if after is None else {"retry-after": f"{after:g}"})
            return True
        return await _MessagesReply(call, writer).send()


def _invalid(body: dict[str, Any]) -> str | None:
    """What the real service would refuse in this request, or None."""
    max_tokens = body.get("max_tokens")
    if not isinstance(max_tokens, int) or isinstance(max_tokens, bool) or max_tokens < 1:
        return "max_tokens: Field required"
    if body.get("stream") is not True:
        return "this fake only streams: send stream: true"
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return "messages: at least one message is required"
    roles = [message.get("role") if isinstance(message, dict) else None for message in messages]
    if any(role not in ("user", "assistant") for role in roles):
        return "messages: roles must be user or assistant"
    if any(first == second for first, second in itertools.pairwise(roles)):
        return "messages: roles must alternate between user and assistant"
    return None


class _MessagesReply:
    """Writes the event stream answering one request, according to its behaviour."""

    def __init__(self, call: _Call, writer: asyncio.StreamWriter) -> None:
        self.call = call
        self.behaviour = call.behaviour
        self.writer = writer
        self.blocks = 0

    async def send(self) -> bool:
        b, call = self.behaviour, self.call
        if b.delay:
            await asyncio.sleep(b.delay)
        await _send_head(
            self.writer, 200, {"content-type": "text/event-stream", "transfer-encoding": "chunked"}
        )
        usage = {"input_tokens": self._tokens()[0], "output_tokens": 1}
        message: dict[str, Any] = {"id": f"msg_fake_{call.serial}", "type": "message", "role": "assistant",
                                   "content": [], "model": call.model, "usage": usage}  # fmt: skip
        await self._event("message_start", {"message": message})
        if b.reasoning:
            thinking = [{"type": "thinking_delta", "thinking": b.reasoning},
                        {"type": "signature_delta", "signature": "ZmFrZQ=="}]  # fmt: skip
            await self._block({"type": "thinking", "thinking": "", "signature": ""}, thinking)
        if (ended := await self._text()) is not None:
            return ended
        for number, tool in enumerate(b.tool_calls):
            arguments = orjson.dumps(tool.get("arguments", {})).decode()
            pieces = _split(arguments, max(_MIN_ARGUMENT_PIECES, b.argument_pieces))
            deltas = [{"type": "input_json_delta", "partial_json": piece} for piece in pieces]
            opening = {"type": "tool_use", "id": f"toolu_fake_{call.serial}_{number}", "name": tool["name"],
                       "input": {}}  # fmt: skip
            await self._block(opening, deltas)
        stop_reason = b.finish_reason or ("tool_use" if b.tool_calls else "end_turn")
        await self._event("message_delta", {"delta": {"stop_reason": stop_reason, "stop_sequence": None},
                                            "usage": {"output_tokens": self._tokens()[1]}})  # fmt: skip
        await self._event("message_stop", {})
        await self._end()
        return True

    async def _text(self) -> bool | None:
        """The answer's text block. None when the reply goes on; else it ended here, after
        `reset_after` or `error_after` pieces: True when the connection may be reused."""
        b = self.behaviour
        pieces = _split(self.call.text, b.chunks)
        stop_at = min((n for n in (b.reset_after, b.error_after) if n is not None), default=None)
        index = self.blocks
        if pieces:
            await self._event(
                "content_block_start", {"index": index, "content_block": {"type": "text", "text": ""}}
            )
        for sent, piece in enumerate(pieces[:stop_at]):
            if b.chunk_delay:
                await asyncio.sleep(b.chunk_delay)
            await self._event(
                "content_block_delta", {"index": index, "delta": {"type": "text_delta", "text": piece}}
            )
            if sent == 0:
                await self._event("ping", {})
        if stop_at is None:
            if pieces:
                await self._event("content_block_stop", {"index": index})
                self.blocks += 1
            return None
        if b.reset_after == stop_at:
            await _reset(self.writer)
            return False
        status = b.status or 529
        error = {"type": _ERROR_TYPES.get(status, "api_error"),
                 "message": b.error_message or _DEFAULT_ERRORS.get(status, "Overloaded")}  # fmt: skip
        await self._event("error", {"error": error})
        await self._end()
        return True

    async def _block(self, opening: dict[str, Any], deltas: list[dict[str, Any]]) -> None:
        index = self.blocks
        self.blocks += 1
        await self._event("content_block_start", {"index": index, "content_block": opening})
        for delta in deltas:
            await self._event("content_block_delta", {"index": index, "delta": delta})
        await self._event("content_block_stop", {"index": index})

    def _tokens(self) -> tuple[int, int]:
        if self.behaviour.usage is not None:
            return self.behaviour.usage
        return max(1, len(orjson.dumps(self.call.body.get("messages", []))) // 4), len(self.call.text.split())

    async def _event(self, kind: str, data: dict[str, Any]) -> None:
        frame = b"event: " + kind.encode() + b"\ndata: " + orjson.dumps({"type": kind, **data}) + b"\n\n"
        self.writer.write(b"%x\r\n%s\r\n" % (len(frame), frame))
        await self.writer.drain()

    async def _end(self) -> None:
        self.writer.write(b"0\r\n\r\n")
        await self.writer.drain()


def _split(text: str, pieces: int) -> list[str]:
    if not text:
        return []
    size = math.ceil(len(text) / max(1, pieces))
    return [text[start : start + size] for start in range(0, len(text), size)]


async def _send_error(
    writer: asyncio.StreamWriter, status: int, message: str, extra: dict[str, str] | None = None
) -> None:
    error = {"type": "error", "error": {"type": _ERROR_TYPES.get(status, "api_error"), "message": message}}
    await _send(writer, status, orjson.dumps(error), {"content-type": "application/json", **(extra or {})})
