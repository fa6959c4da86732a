"""Read a Gemini `streamGenerateContent?alt=sse` reply back into OpenAI chat-completion chunks.

Each `GenerateContentResponse` event becomes chunks, so the engine reads a
Gemini member like any other: text to `content`, `thought: true` text to
`reasoning_content`, each `functionCall` (Gemini sends it whole) to one tool
call chunk with a generated id unless the part has one, `finishReason` to a
finish reason (`STOP` is `tool_calls` when the turn called a function) and
`usageMetadata` to the closing usage chunk. A stream that ends without a
finish reason, an `{"error": ...}` event, or more than the byte cap is
refused; chunks read before an error are returned first and the error raised
on the next call.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Iterator
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
_FINISH = {"STOP": "stop", "MAX_TOKENS": "length"}


class GeminiChunkReader:
    """Reads one `streamGenerateContent?alt=sse` reply into chat-completion chunks; no I/O."""

    def __init__(self, provider: str, max_bytes: int) -> None:
        self.provider = provider
        self.max_bytes = max_bytes
        self._id = "gemini"
        self._model = ""
        self._created = int(time.time())
        self._call_prefix = f"call_{secrets.token_hex(4)}"
        self._text: list[str] = []
        self._calls = 0
        self._finish: str | None = None
        self._usage: dict[str, int] = {}
        self._size = 0
        self._lines = SseLines(self._not_a_stream)
        self._failure: UpstreamError | None = None

    def feed(self, data: bytes) -> list[dict[str, Any]]:
        self._raise_held()
        self._size += len(data)
        if self._size > self.max_bytes:
            raise self._bad(f"the reply passed the {self.max_bytes:,}-byte cap")
        return self._read(self._lines.feed(data))

    def close(self) -> list[dict[str, Any]]:
        """The last chunks and the usage chunk; refuses a reply that never said how it finished."""
        self._raise_held()
        chunks = self._read(self._lines.close())
        self._raise_held()
        if not self._lines.events:
            raise self._bad("the endpoint answered with an event stream that had no events")
        if self._finish is None:
            raise self._bad("the stream stopped before the reply was complete")
        return [*chunks, self._usage_chunk()]

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
        if "error" in event:
            raise self._error(event["error"])
        if isinstance(event.get("responseId"), str):
            self._id = event["responseId"]
        if isinstance(event.get("modelVersion"), str):
            self._model = event["modelVersion"]
        self._take_usage(event.get("usageMetadata"))
        chunks = [self._chunk({"role": "assistant", "content": ""})] if self._lines.events == 1 else []
        candidates = event.get("candidates")
        if isinstance(candidates, list) and candidates and isinstance(candidates[0], dict):
            chunks.extend(self._candidate(candidates[0]))
        elif isinstance(event.get("promptFeedback"), dict) and event["promptFeedback"].get("blockReason"):
            chunks.append(self._finished("content_filter"))  # the prompt itself was blocked
        return chunks

    def _candidate(self, candidate: dict[str, Any]) -> list[dict[str, Any]]:
        chunks: list[dict[str, Any]] = []
        content = candidate.get("content")
        parts = content.get("parts") if isinstance(content, dict) else None
        for part in parts if isinstance(parts, list) else []:
            if isinstance(part, dict):
                chunks.extend(self._part(part))
        reason = candidate.get("finishReason")
        if isinstance(reason, str) and reason:
            finish = _FINISH.get(reason, "content_filter")
            chunks.append(self._finished("tool_calls" if finish == "stop" and self._calls else finish))
        return chunks

    def _part(self, part: dict[str, Any]) -> list[dict[str, Any]]:
        text = part.get("text")
        if isinstance(text, str):
            if not text:
                return []
            if part.get("thought") is True:
                return [self._chunk({"reasoning_content": text})]
            self._text.append(text)
            return [self._chunk({"content": text})]
        call = part.get("functionCall")
        if call is None:
            return []  # inline data, executable code: nothing a chat chunk carries
        if not isinstance(call, dict) or not isinstance(call.get("name"), str) or not call["name"]:
            raise self._bad("the stream carried a function call without a name")
        args = call.get("args") or {}
        if not isinstance(args, dict):
            raise self._bad(f"the stream carried arguments for `{call['name']}` that are not an object")
        call_id = call["id"] if isinstance(call.get("id"), str) and call["id"] else None
        function = {"name": call["name"], "arguments": orjson.dumps(args).decode()}
        entry = {"index": self._calls, "id": call_id or f"{self._call_prefix}_{self._calls}"}
        self._calls += 1
        return [self._chunk({"tool_calls": [{**entry, "type": "function", "function": function}]})]

    def _error(self, error: object) -> UpstreamStatusError:
        said = str(error.get("message") or error) if isinstance(error, dict) else str(error)
        code = error.get("code") if isinstance(error, dict) else None
        status = code if isinstance(code, int) and not isinstance(code, bool) else None
        name = error.get("status") if isinstance(error, dict) else None
        wording = f"{said} {name}" if isinstance(name, str) else said
        return UpstreamStatusError(
            f"`{self.provider}` reported an error inside its reply: {wording}",
            kind=classify(status, wording),
            provider=self.provider,
            status=status,
            partial_text="".join(self._text),
            retryable=status is not None and is_retry_status(status),
        )

    # ---- chunks ----------------------------------------------------------------------

    def _finished(self, finish: str) -> dict[str, Any]:
        self._finish = finish
        return self._chunk({}, finish)

    def _chunk(self, delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {
            "id": self._id,
            "object": "chat.completion.chunk",
            "created": self._created,
            "model": self._model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }

    def _take_usage(self, metadata: object) -> None:
        if isinstance(metadata, dict):
            for field in ("promptTokenCount", "candidatesTokenCount", "thoughtsTokenCount"):
                if isinstance(count := metadata.get(field), int):
                    self._usage[field] = count

    def _usage_chunk(self) -> dict[str, Any]:
        """Completion tokens count the thoughts too, as OpenAI's do, and name them as reasoning."""
        thoughts = self._usage.get("thoughtsTokenCount", 0)
        tokens_in = self._usage.get("promptTokenCount", 0)
        tokens_out = self._usage.get("candidatesTokenCount", 0) + thoughts
        usage: dict[str, Any] = {
            "prompt_tokens": tokens_in,
            "completion_tokens": tokens_out,
            "total_tokens": tokens_in + tokens_out,
        }
        if thoughts:
            usage["completion_tokens_details"] = {"reasoning_tokens": thoughts}
        return {**self._chunk({}), "choices": [], "usage": usage}

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
