"""The OpenAI chat-completions wire format: the request we send, the reply we read.

Every call asks for a stream with usage included, because a stream lets the
engine show an answer as it is written and the last chunk carries the token
counts the usage ledger needs. Endpoints are loose about this, so the reader
is forgiving where it can be and strict where it must be:

- it decides from the first bytes, not the Content-Type, whether the reply is
  an event stream or one whole JSON completion (some servers ignore
  `stream: true`; some label their stream `text/plain`);
- it reads each `data:` line as one event, with or without the blank line
  after it, skips comments (`: keep-alive`) and other SSE fields;
- it refuses a body that is neither (an HTML error page with status 200), a
  malformed chunk, an `{"error": ...}` chunk, a stream that stops before
  `[DONE]` or a finish reason, and anything past the reply cap.

`ChatReplyReader` does no I/O: the client feeds it bytes and passes the text
pieces it yields to whoever is streaming the answer.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

import orjson

from panelgate.core.types import ChatMessage
from panelgate.upstream.errors import UpstreamBadReply, UpstreamStatusError, classify, redact
from panelgate.upstream.request_json import request_json
from panelgate.upstream.retry import is_retry_status
from panelgate.upstream.sse_lines import SseLines

CHAT_PATH = "/chat/completions"
_SNIPPET_CHARS = 120


def request_body(
    served_id: str, messages: list[ChatMessage], options: Mapping[str, Any], *, stream_options: bool
) -> bytes:
    """The JSON body of one streamed chat call; the call's options cannot
    override the model, the messages or streaming."""
    body = dict(options)
    body["model"] = served_id
    body["messages"] = messages
    body["stream"] = True
    if stream_options:
        body.setdefault("stream_options", {"include_usage": True})
    else:
        body.pop("stream_options", None)
    return request_json(body)


def request_headers(key: str | None, extra: Mapping[str, str]) -> dict[str, str]:
    headers = {"content-type": "application/json", "accept": "text/event-stream, application/json"}
    if key:
        headers["authorization"] = f"Bearer {key}"
    headers.update(extra)
    return headers


def refuses_stream_options(status: int, body: str) -> bool:
    """Whether an error reply is the endpoint refusing `stream_options` (sent again without it)."""
    return status in (400, 422) and ("stream_options" in body or "include_usage" in body)


def error_text(body: bytes) -> str:
    """The human part of an error body: `error.message`, `message` or `detail`, else the raw text."""
    try:
        parsed = orjson.loads(body)
    except orjson.JSONDecodeError:
        return body.decode("utf-8", "replace")
    if isinstance(parsed, dict):
        found = parsed.get("error", parsed)
        if isinstance(found, dict):
            found = found.get("message") or found.get("detail") or found
        if isinstance(found, str):
            return found
    return body.decode("utf-8", "replace")


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _first_int(value: object, otherwise: int | None) -> int | None:
    found = _int(value)
    return otherwise if found is None else found


class ChatReplyReader:
    """Assembles one chat reply from the bytes of its body, streamed or whole."""

    def __init__(
        self, provider: str, max_bytes: int, *, on_chunk: Callable[[dict[str, Any]], None] | None = None
    ) -> None:
        self.provider = provider
        self._on_chunk = on_chunk
        self.max_bytes = max_bytes
        self.model = ""
        self.finish_reason: str | None = None
        self.tokens_in: int | None = None
        self.tokens_out: int | None = None
        self.tokens_reasoning: int | None = None
        self._text: list[str] = []
        self._reasoning: list[str] = []
        self._tool_calls: dict[int, dict[str, Any]] = {}
        self._size = 0
        self._whole: bool | None = None
        self._body: list[bytes] = []
        self._lines = SseLines(self._not_a_stream)
        self._done = False

    @property
    def text(self) -> str:
        return "".join(self._text)

    @property
    def reasoning(self) -> str:
        return "".join(self._reasoning)

    @property
    def tool_calls(self) -> list[dict[str, Any]]:
        return [self._tool_calls[index] for index in sorted(self._tool_calls)]

    def feed(self, data: bytes) -> Iterator[str]:
        """Read the next bytes of the body, yielding the answer's new text pieces.

        A generator, so a failure later in the same bytes (an error chunk
        right after some text) is raised only after the text before it was
        taken: the caller shows what arrived, in order, then the failure.
        """
        self._size += len(data)
        if self._size > self.max_bytes:
            raise self._bad(f"the reply passed the {self.max_bytes:,}-byte cap")
        if self._whole is None:
            data = data.lstrip()
            if not data:
                return
            self._whole = data[:1] in (b"{", b"[")
        if self._whole:
            self._body.append(data)
            return
        for payload in self._lines.feed(data):
            if piece := self._read_event(payload):
                yield piece

    def close(self) -> Iterator[str]:
        """The body has ended: yields the last text pieces, then raises when the
        reply was not a complete chat reply."""
        if self._whole is None:
            raise self._bad("the endpoint answered with an empty body")
        if self._whole:
            if piece := self._read_whole(b"".join(self._body)):
                yield piece
            return
        for payload in self._lines.close():
            if piece := self._read_event(payload):
                yield piece
        if not self._lines.events:
            raise self._bad("the endpoint answered with an event stream that had no events")
        if not self._done and self.finish_reason is None:
            raise self._bad("the stream stopped before the reply was complete")

    # ---- events --------------------------------------------------------------------

    def _read_event(self, payload: bytes) -> str | None:
        if payload == b"[DONE]":
            self._done = True
            return None
        try:
            chunk = orjson.loads(payload)
        except orjson.JSONDecodeError:
            raise self._bad(f"the stream carried a malformed chunk: {self._snippet(payload)}") from None
        if not isinstance(chunk, dict):
            raise self._bad(f"the stream carried a chunk that is not an object: {self._snippet(payload)}")
        return self._apply(chunk)

    def _read_whole(self, body: bytes) -> str | None:
        try:
            reply = orjson.loads(body)
        except orjson.JSONDecodeError:
            raise self._bad(f"the endpoint answered with broken JSON: {self._snippet(body)}") from None
        if not isinstance(reply, dict) or not ("choices" in reply or "error" in reply):
            raise self._bad(
                f"the endpoint answered JSON that is not a chat completion: {self._snippet(body)}"
            )
        return self._apply(reply)

    def _apply(self, chunk: dict[str, Any]) -> str | None:
        """Take one chunk (or a whole completion) into the reply; returns its text."""
        error = chunk.get("error")
        if error:
            raise self._error_chunk(error)
        if self._on_chunk is not None:
            self._on_chunk(chunk)
        model = chunk.get("model")
        if model and isinstance(model, str):
            self.model = model
        usage = chunk.get("usage")
        if usage and isinstance(usage, dict):
            self._apply_usage(usage)
        choices = chunk.get("choices")
        if not (choices and isinstance(choices, list) and isinstance(choices[0], dict)):
            return None
        choice = choices[0]
        finish = choice.get("finish_reason")
        if finish and isinstance(finish, str):
            self.finish_reason = finish
        part = choice.get("delta") or choice.get("message")
        return self._apply_part(part) if isinstance(part, dict) else None

    def _apply_part(self, part: dict[str, Any]) -> str | None:
        reasoning = part.get("reasoning_content") or part.get("reasoning")
        if reasoning and isinstance(reasoning, str):
            self._reasoning.append(reasoning)
        calls = part.get("tool_calls")
        if calls and isinstance(calls, list):
            self._apply_tool_calls(calls)
        content = part.get("content")
        if content and isinstance(content, str):
            self._text.append(content)
            return content
        return None

    def _apply_tool_calls(self, calls: list[Any]) -> None:
        """Stream deltas add to the call at their `index`; a whole message's calls
        come complete, in order."""
        for position, call in enumerate(calls):
            if not isinstance(call, dict):
                continue
            index = _int(call.get("index"))
            held = self._tool_calls.setdefault(
                position if index is None else index,
                {"id": "", "type": "function", "function": {"name": "", "arguments": ""}},
            )
            if call.get("id"):
                held["id"] = call["id"]
            function = call.get("function")
            if isinstance(function, dict):
                for field in ("name", "arguments"):
                    value = function.get(field)
                    if isinstance(value, str):
                        held["function"][field] += value
                    elif value is not None:
                        held["function"][field] += orjson.dumps(value).decode()

    def _apply_usage(self, usage: dict[str, Any]) -> None:
        details = usage.get("completion_tokens_details")
        reasoning = details.get("reasoning_tokens") if isinstance(details, dict) else None
        self.tokens_in = _first_int(usage.get("prompt_tokens"), self.tokens_in)
        self.tokens_out = _first_int(usage.get("completion_tokens"), self.tokens_out)
        self.tokens_reasoning = _first_int(reasoning, self.tokens_reasoning)

    # ---- failures ------------------------------------------------------------------

    def _snippet(self, data: bytes) -> str:
        return redact(data[:_SNIPPET_CHARS].decode("utf-8", "replace"))

    def _not_a_stream(self, line: bytes) -> UpstreamBadReply:
        """A line that shows, before any event, that the body is no event stream at all."""
        snippet = self._snippet(line)
        return self._bad(f"the endpoint answered with neither JSON nor an event stream: {snippet}")

    def _bad(self, why: str) -> UpstreamBadReply:
        return UpstreamBadReply(f"`{self.provider}`: {why}", provider=self.provider, partial_text=self.text)

    def _error_chunk(self, error: object) -> UpstreamStatusError:
        said = error if isinstance(error, str) else ""
        status = None
        if isinstance(error, dict):
            said = str(error.get("message") or error.get("code") or error)
            status = _int(error.get("code")) or _int(error.get("status"))
        wording = said if status is not None else f"{said} {error}"
        return UpstreamStatusError(
            f"`{self.provider}` reported an error inside its reply: {said}",
            kind=classify(status, wording),
            provider=self.provider,
            status=status,
            partial_text=self.text,
            retryable=status is not None and is_retry_status(status),
        )
