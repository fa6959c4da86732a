"""A real Anthropic Messages server on 127.0.0.1 for tests: what a member on `api: anthropic` calls.

It is `FakeUpstream` (its server thread, event loop, keep-alive HTTP/1.1
plumbing, `behave`, `requests`, `requests_for` and `reset`), failing and
streaming as `FakeGemini` does (`native_fakes`), answering
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
reasoning, tool_calls, argument_pieces, finish_reason, served_as (the
message's `model`), require_key (checked
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
from typing import Any

import orjson

from tests.support.native_fakes import ChunkedReply, NativeFake, split
from tests.support.upstream import _DEFAULT_ERRORS, _Call, _Request, _reset

_ERROR_TYPES = {
    400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
    404: "not_found_error", 413: "request_too_large", 429: "rate_limit_error", 500: "api_error",
    529: "overloaded_error",
}  # fmt: skip
_MIN_ARGUMENT_PIECES = 3


class FakeAnthropic(NativeFake):
    key_header = "x-api-key"
    not_json = "the body is not JSON"
    bad_key = (401, "invalid x-api-key")

    async def _answer(
        self, request: _Request, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> bool:
        if request.method == "POST" and request.path == "/v1/messages":
            return await self._streamed_call(request, writer, lambda body: self._take_call(request, body))
        return await super()._answer(request, reader, writer)

    def _error_body(self, status: int, message: str) -> dict[str, Any]:
        return {"type": "error", "error": {"type": _ERROR_TYPES.get(status, "api_error"), "message": message}}

    def _invalid(self, body: dict[str, Any]) -> str | None:
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

    def _reply(self, call: _Call, writer: asyncio.StreamWriter) -> ChunkedReply:
        return _MessagesReply(call, writer)


class _MessagesReply(ChunkedReply):
    """Writes the Messages event stream answering one request."""

    def __init__(self, call: _Call, writer: asyncio.StreamWriter) -> None:
        super().__init__(call, writer)
        self.blocks = 0

    async def send(self) -> bool:
        b, call = self.behaviour, self.call
        await self.start()
        usage = {"input_tokens": self.tokens("messages")[0], "output_tokens": 1}
        served = b.served_as or call.model
        message: dict[str, Any] = {"id": f"msg_fake_{call.serial}", "type": "message", "role": "assistant",
                                   "content": [], "model": served, "usage": usage}  # fmt: skip
        await self._event("message_start", {"message": message})
        if b.reasoning:
            thinking = [{"type": "thinking_delta", "thinking": b.reasoning},
                        {"type": "signature_delta", "signature": "ZmFrZQ=="}]  # fmt: skip
            await self._block({"type": "thinking", "thinking": "", "signature": ""}, thinking)
        if (ended := await self._text()) is not None:
            return ended
        for number, tool in enumerate(b.tool_calls):
            arguments = orjson.dumps(tool.get("arguments", {})).decode()
            pieces = split(arguments, max(_MIN_ARGUMENT_PIECES, b.argument_pieces))
            deltas = [{"type": "input_json_delta", "partial_json": piece} for piece in pieces]
            opening = {"type": "tool_use", "id": f"toolu_fake_{call.serial}_{number}", "name": tool["name"],
                       "input": {}}  # fmt: skip
            await self._block(opening, deltas)
        stop_reason = b.finish_reason or ("tool_use" if b.tool_calls else "end_turn")
        answered = self.tokens("messages")[1]
        await self._event("message_delta", {"delta": {"stop_reason": stop_reason, "stop_sequence": None},
                                            "usage": {"output_tokens": answered}})  # fmt: skip
        await self._event("message_stop", {})
        await self.end()
        return True

    async def _text(self) -> bool | None:
        """The answer's text block. None when the reply goes on; else it ended here, after
        `reset_after` or `error_after` pieces: True when the connection may be reused."""
        b = self.behaviour
        pieces = split(self.call.text, b.chunks)
        stop_at = self.stop_at
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
        await self.end()
        return True

    async def _block(self, opening: dict[str, Any], deltas: list[dict[str, Any]]) -> None:
        index = self.blocks
        self.blocks += 1
        await self._event("content_block_start", {"index": index, "content_block": opening})
        for delta in deltas:
            await self._event("content_block_delta", {"index": index, "delta": delta})
        await self._event("content_block_stop", {"index": index})

    async def _event(self, kind: str, data: dict[str, Any]) -> None:
        await self.frame(
            b"event: " + kind.encode() + b"\ndata: " + orjson.dumps({"type": kind, **data}) + b"\n\n"
        )
