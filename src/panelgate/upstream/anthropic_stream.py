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

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from panelgate.upstream.errors import classify
from panelgate.upstream.native_stream import NativeStream

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
        self._stream = NativeStream(provider, max_bytes, self._read_event, reply_id="msg")
        self._blocks: dict[int, _Block] = {}
        self._calls = 0
        self._finish: str | None = None
        self._tokens_in: int | None = None
        self._input: dict[str, int] = {}
        self._tokens_out: int | None = None
        self._stopped = False
        self._usage_sent = False
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
        return self._stream.feed(data)

    def close(self) -> list[dict[str, Any]]:
        chunks = self._stream.close()
        if not self._stopped and self._finish is None:
            raise self._stream.bad("the stream stopped before the reply was complete")
        if not self._usage_sent:
            chunks.append(self._usage_chunk())
        return chunks

    # ---- events --------------------------------------------------------------------

    def _read_event(self, event: dict[str, Any]) -> list[dict[str, Any]]:
        handler = self._handlers.get(str(event.get("type")))
        return handler(event) if handler is not None else []  # ping, and kinds added after this was written

    def _message_start(self, event: dict[str, Any]) -> list[dict[str, Any]]:
        message = event.get("message")
        if isinstance(message, dict):
            if isinstance(message.get("id"), str):
                self._stream.reply_id = message["id"]
            if isinstance(message.get("model"), str):
                self._stream.model = message["model"]
            self._take_usage(message.get("usage"))
        return [self._stream.chunk({"role": "assistant", "content": ""})]

    def _block_start(self, event: dict[str, Any]) -> list[dict[str, Any]]:
        index, block = self._index(event), event.get("content_block")
        if not isinstance(block, dict):
            raise self._stream.bad("the stream started a content block without describing it")
        kind = str(block.get("type"))
        if kind != "tool_use":
            self._blocks[index] = _Block(kind)
            opening = block.get(kind) if kind in ("text", "thinking") else None
            return self._piece(kind, opening) if isinstance(opening, str) and opening else []
        call_id, name = block.get("id"), block.get("name")
        if not isinstance(call_id, str) or not isinstance(name, str) or not name:
            raise self._stream.bad("the stream started a tool_use block without an id and a name")
        self._blocks[index] = _Block(kind, call=self._calls)
        self._calls += 1
        call = {"index": self._calls - 1, "id": call_id, "type": "function"}
        return [self._stream.chunk({"tool_calls": [{**call, "function": {"name": name, "arguments": ""}}]})]

    def _block_delta(self, event: dict[str, Any]) -> list[dict[str, Any]]:
        index, delta = self._index(event), event.get("delta")
        block = self._blocks.get(index)
        if block is None or not isinstance(delta, dict):
            raise self._stream.bad(f"the stream sent a delta for content block {index}, which never started")
        kind = delta.get("type")
        if kind == "text_delta":
            return self._piece("text", delta.get("text"))
        if kind == "thinking_delta":
            return self._piece("thinking", delta.get("thinking"))
        if kind == "input_json_delta" and block.kind == "tool_use":
            partial = delta.get("partial_json")
            if not isinstance(partial, str):
                raise self._stream.bad("the stream sent tool input that is not text")
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
        return [self._stream.chunk({}, self._finish)]

    def _message_stop(self, event: dict[str, Any]) -> list[dict[str, Any]]:
        self._stopped = True
        return [] if self._usage_sent else [self._usage_chunk()]

    def _error(self, event: dict[str, Any]) -> list[dict[str, Any]]:
        error = event.get("error")
        error = error if isinstance(error, dict) else {}
        kind = str(error.get("type") or "error")
        said = str(error.get("message") or kind)
        status = _ERROR_STATUS.get(kind)
        raise self._stream.reported(
            f"{said} ({kind})",
            kind="capacity" if kind in _CAPACITY_ERRORS else classify(status, f"{said} {kind}"),
            status=status,
        )

    # ---- chunks ----------------------------------------------------------------------

    def _piece(self, kind: str, text: object) -> list[dict[str, Any]]:
        if not isinstance(text, str):
            raise self._stream.bad(f"the stream sent {kind} that is not text")
        if not text:
            return []
        if kind == "thinking":
            return [self._stream.chunk({"reasoning_content": text})]
        self._stream.text.append(text)
        return [self._stream.chunk({"content": text})]

    def _arguments(self, block: _Block, text: str) -> list[dict[str, Any]]:
        block.has_arguments = True
        return [self._stream.chunk({"tool_calls": [{"index": block.call, "function": {"arguments": text}}]})]

    def _usage_chunk(self) -> dict[str, Any]:
        self._usage_sent = True
        return self._stream.usage_chunk(self._tokens_in or 0, self._tokens_out or 0)

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
            raise self._stream.bad(f"the stream sent a `{event.get('type')}` event without a block index")
        return index
