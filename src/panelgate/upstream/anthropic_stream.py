"""Read an Anthropic Messages event stream back into OpenAI chat-completion chunks.

The reader maps text to `content`, thinking to `reasoning_content`, each
`tool_use` block to one tool call (its first chunk has the id and name, each
`input_json_delta` follows at the same index), `stop_reason` to a finish
reason, and ends with a usage chunk, so the engine reads a Claude member like
any other. An `error` event is an `UpstreamStatusError` of the kind its type
says (`overloaded_error` is capacity); chunks read before it are returned
first and the error raised on the next call, so the caller shows what arrived,
in order, then the failure.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import orjson

from panelgate.upstream.errors import (
    UpstreamBadReply,
    UpstreamError,
    UpstreamStatusError,
    classify,
    redact,
)
from panelgate.upstream.retry import is_retry_status
from panelgate.upstream.sse_lines import SseLines

_SNIPPET_CHARS = 120
_FINISH = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "tool_use": "tool_calls",
    "refusal": "content_filter",
}
_ERROR_STATUS = {
    "invalid_request_error": 400,
    "authentication_error": 401,
    "billing_error": 402,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "api_error": 500,
    "timeout_error": 504,
    "overloaded_error": 529,
}
_INPUT_COUNTS = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
_CAPACITY_ERRORS = frozenset({"overloaded_error", "rate_limit_error"})


@dataclass(slots=True)
class _Block:
    """One content block of the reply being read: its kind and, for tool_use, its call."""

    kind: str
    call: int = -1
    has_arguments: bool = False


class AnthropicChunkReader:
    """Reads one Messages event stream into chat-completion chunks; no I/O."""

    def __init__(self, provider: str, max_bytes: int) -> None:
        self.provider = provider
        self.max_bytes = max_bytes
        self._id = "msg"
        self._model = ""
        self._created = int(time.time())
        self._text: list[str] = []
        self._blocks: dict[int, _Block] = {}
        self._calls = 0
        self._finish: str | None = None
        self._tokens_in: int | None = None
        self._input: dict[str, int] = {}
        self._tokens_out: int | None = None
        self._stopped = False
        self._usage_sent = False
        self._size = 0
        self._lines = SseLines(self._not_a_stream)
        self._failure: UpstreamError | None = None
        self._handlers: dict[str, Callable[[dict[str, Any]], list[dict[str, Any]]]] = {
            "message_start": self._message_start,
            "content_block_start": self._block_start,
            "content_block_delta": self._block_delta,
            "content_block_stop": self._block_stop,
            "message_delta": self._message_delta,
            "message_stop": self._message_stop,
            "error": self._error,
        }

    def feed(self, data: bytes) -> list[dict[str, Any]]:
        self._raise_held()
        self._size += len(data)
        if self._size > self.max_bytes:
            raise self._bad(f"the reply passed the {self.max_bytes:,}-byte cap")
        return self._read(self._lines.feed(data))

    def close(self) -> list[dict[str, Any]]:
        self._raise_held()
        chunks = self._read(self._lines.close())
        self._raise_held()
        if not self._lines.events:
            raise self._bad("the endpoint answered with an event stream that had no events")
        if not self._stopped and self._finish is None:
            raise self._bad("the stream stopped before the reply was complete")
        if not self._usage_sent:
            chunks.append(self._usage_chunk())
        return chunks

    # ---- events --------------------------------------------------------------------

    def _read(self, payloads: Iterator[bytes]) -> list[dict[str, Any]]:
        """The chunks of these events; a failure after some chunks is held for the next call."""
        chunks: list[dict[str, Any]] = []
        try:
            for payload in payloads:
                chunks.extend(self._read_event(payload))
        except UpstreamError as failure:
            if not chunks:
                raise
            self._failure = failure
        return chunks

    def _raise_held(self) -> None:
        if self._failure is not None:
            raise self._failure

    def _read_event(self, payload: bytes) -> list[dict[str, Any]]:
        try:
            event = orjson.loads(payload)
        except orjson.JSONDecodeError:
            raise self._bad(f"the stream carried a malformed event: {self._snippet(payload)}") from None
        if not isinstance(event, dict):
            raise self._bad(f"the stream carried an event that is not an object: {self._snippet(payload)}")
        handler = self._handlers.get(str(event.get("type")))
        return handler(event) if handler is not None else []  # ping, and kinds added after this was written

    def _message_start(self, event: dict[str, Any]) -> list[dict[str, Any]]:
        message = event.get("message")
        if isinstance(message, dict):
            if isinstance(message.get("id"), str):
                self._id = message["id"]
            if isinstance(message.get("model"), str):
                self._model = message["model"]
            self._take_usage(message.get("usage"))
        return [self._chunk({"role": "assistant", "content": ""})]

    def _block_start(self, event: dict[str, Any]) -> list[dict[str, Any]]:
        index, block = self._index(event), event.get("content_block")
        if not isinstance(block, dict):
            raise self._bad("the stream started a content block without describing it")
        kind = str(block.get("type"))
        if kind != "tool_use":
            self._blocks[index] = _Block(kind)
            opening = block.get(kind) if kind in ("text", "thinking") else None
            return self._piece(kind, opening) if isinstance(opening, str) and opening else []
        call_id, name = block.get("id"), block.get("name")
        if not isinstance(call_id, str) or not isinstance(name, str) or not name:
            raise self._bad("the stream started a tool_use block without an id and a name")
        self._blocks[index] = _Block(kind, call=self._calls)
        self._calls += 1
        call = {"index": self._calls - 1, "id": call_id, "type": "function"}
        return [self._chunk({"tool_calls": [{**call, "function": {"name": name, "arguments": ""}}]})]

    def _block_delta(self, event: dict[str, Any]) -> list[dict[str, Any]]:
        index, delta = self._index(event), event.get("delta")
        block = self._blocks.get(index)
        if block is None or not isinstance(delta, dict):
            raise self._bad(f"the stream sent a delta for content block {index}, which never started")
        kind = delta.get("type")
        if kind == "text_delta":
            return self._piece("text", delta.get("text"))
        if kind == "thinking_delta":
            return self._piece("thinking", delta.get("thinking"))
        if kind == "input_json_delta" and block.kind == "tool_use":
            partial = delta.get("partial_json")
            if not isinstance(partial, str):
                raise self._bad("the stream sent tool input that is not text")
            return self._arguments(block, partial) if partial else []
        return []  # signature_delta, citations_delta: nothing a chat chunk carries

    def _block_stop(self, event: dict[str, Any]) -> list[dict[str, Any]]:
        block = self._blocks.get(self._index(event))
        if block is not None and block.kind == "tool_use" and not block.has_arguments:
            return self._arguments(block, "{}")  # a call without input still has JSON arguments
        return []

    def _message_delta(self, event: dict[str, Any]) -> list[dict[str, Any]]:
        self._take_usage(event.get("usage"))
        delta = event.get("delta")
        reason = delta.get("stop_reason") if isinstance(delta, dict) else None
        if not isinstance(reason, str) or not reason:
            return []
        self._finish = _FINISH.get(reason, "stop")
        return [self._chunk({}, self._finish)]

    def _message_stop(self, event: dict[str, Any]) -> list[dict[str, Any]]:
        self._stopped = True
        return [] if self._usage_sent else [self._usage_chunk()]

    def _error(self, event: dict[str, Any]) -> list[dict[str, Any]]:
        error = event.get("error")
        error = error if isinstance(error, dict) else {}
        kind = str(error.get("type") or "error")
        said = str(error.get("message") or kind)
        status = _ERROR_STATUS.get(kind)
        raise UpstreamStatusError(
            f"`{self.provider}` reported an error inside its reply: {said} ({kind})",
            kind="capacity" if kind in _CAPACITY_ERRORS else classify(status, f"{said} {kind}"),
            provider=self.provider,
            status=status,
            partial_text="".join(self._text),
            retryable=status is not None and is_retry_status(status),
        )

    # ---- chunks ----------------------------------------------------------------------

    def _piece(self, kind: str, text: object) -> list[dict[str, Any]]:
        if not isinstance(text, str):
            raise self._bad(f"the stream sent {kind} that is not text")
        if not text:
            return []
        if kind == "thinking":
            return [self._chunk({"reasoning_content": text})]
        self._text.append(text)
        return [self._chunk({"content": text})]

    def _arguments(self, block: _Block, text: str) -> list[dict[str, Any]]:
        block.has_arguments = True
        return [self._chunk({"tool_calls": [{"index": block.call, "function": {"arguments": text}}]})]

    def _chunk(self, delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {
            "id": self._id,
            "object": "chat.completion.chunk",
            "created": self._created,
            "model": self._model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }

    def _usage_chunk(self) -> dict[str, Any]:
        self._usage_sent = True
        tokens_in, tokens_out = self._tokens_in or 0, self._tokens_out or 0
        usage = {
            "prompt_tokens": tokens_in,
            "completion_tokens": tokens_out,
            "total_tokens": tokens_in + tokens_out,
        }
        return {**self._chunk({}), "choices": [], "usage": usage}

    def _take_usage(self, usage: object) -> None:
        """Counts arrive in `message_start` and again, updated, in `message_delta`; the last of
        each is kept. Prompt tokens count cache reads and writes too, as OpenAI's `prompt_tokens` do."""
        if not isinstance(usage, dict):
            return
        for field in _INPUT_COUNTS:
            if isinstance(count := usage.get(field), int):
                self._input[field] = count
        if self._input:
            self._tokens_in = sum(self._input.values())
        if isinstance(usage.get("output_tokens"), int):
            self._tokens_out = usage["output_tokens"]

    def _index(self, event: dict[str, Any]) -> int:
        index = event.get("index")
        if not isinstance(index, int) or isinstance(index, bool):
            raise self._bad(f"the stream sent a `{event.get('type')}` event without a block index")
        return index

    # ---- failures --------------------------------------------------------------------

    def _snippet(self, data: bytes) -> str:
        return redact(data[:_SNIPPET_CHARS].decode("utf-8", "replace"))

    def _not_a_stream(self, line: bytes) -> UpstreamBadReply:
        snippet = self._snippet(line)
        return self._bad(f"the endpoint answered with something that is not an event stream: {snippet}")

    def _bad(self, why: str) -> UpstreamBadReply:
        return UpstreamBadReply(
            f"`{self.provider}`: {why}", provider=self.provider, partial_text="".join(self._text)
        )
