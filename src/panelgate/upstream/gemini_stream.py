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
from typing import Any

import orjson

from panelgate.upstream.errors import UpstreamStatusError, classify
from panelgate.upstream.native_stream import NativeStream

_FINISH = {"STOP": "stop", "MAX_TOKENS": "length"}


class GeminiChunkReader:
    """Reads one `streamGenerateContent?alt=sse` reply into chat-completion chunks; no I/O."""

    def __init__(self, provider: str, max_bytes: int) -> None:
        self.provider = provider
        self.max_bytes = max_bytes
        self._stream = NativeStream(provider, max_bytes, self._read_event, reply_id="gemini")
        self._call_prefix = f"call_{secrets.token_hex(4)}"
        self._calls = 0
        self._finish: str | None = None
        self._usage: dict[str, int] = {}

    def feed(self, data: bytes) -> list[dict[str, Any]]:
        return self._stream.feed(data)

    def close(self) -> list[dict[str, Any]]:
        """The last chunks and the usage chunk; refuses a reply that never said how it finished."""
        chunks = self._stream.close()
        if self._finish is None:
            raise self._stream.bad("the stream stopped before the reply was complete")
        return [*chunks, self._usage_chunk()]

    # ---- events --------------------------------------------------------------------

    def _read_event(self, event: dict[str, Any]) -> list[dict[str, Any]]:
        if "error" in event:
            raise self._error(event["error"])
        if isinstance(event.get("responseId"), str):
            self._stream.reply_id = event["responseId"]
        if isinstance(event.get("modelVersion"), str):
            self._stream.model = event["modelVersion"]
        self._take_usage(event.get("usageMetadata"))
        first = self._stream.events == 1
        chunks = [self._stream.chunk({"role": "assistant", "content": ""})] if first else []
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
                return [self._stream.chunk({"reasoning_content": text})]
            self._stream.text.append(text)
            return [self._stream.chunk({"content": text})]
        call = part.get("functionCall")
        if call is None:
            return []  # inline data, executable code: nothing a chat chunk carries
        if not isinstance(call, dict) or not isinstance(call.get("name"), str) or not call["name"]:
            raise self._stream.bad("the stream carried a function call without a name")
        args = call.get("args") or {}
        if not isinstance(args, dict):
            name = call["name"]
            raise self._stream.bad(f"the stream carried arguments for `{name}` that are not an object")
        call_id = call["id"] if isinstance(call.get("id"), str) and call["id"] else None
        function = {"name": call["name"], "arguments": orjson.dumps(args).decode()}
        entry = {"index": self._calls, "id": call_id or f"{self._call_prefix}_{self._calls}"}
        self._calls += 1
        return [self._stream.chunk({"tool_calls": [{**entry, "type": "function", "function": function}]})]

    def _error(self, error: object) -> UpstreamStatusError:
        said = str(error.get("message") or error) if isinstance(error, dict) else str(error)
        code = error.get("code") if isinstance(error, dict) else None
        status = code if isinstance(code, int) and not isinstance(code, bool) else None
        name = error.get("status") if isinstance(error, dict) else None
        wording = f"{said} {name}" if isinstance(name, str) else said
        return self._stream.reported(wording, kind=classify(status, wording), status=status)

    # ---- chunks ----------------------------------------------------------------------

    def _finished(self, finish: str) -> dict[str, Any]:
        self._finish = finish
        return self._stream.chunk({}, finish)

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
        return self._stream.usage_chunk(tokens_in, tokens_out, reasoning=thoughts)
