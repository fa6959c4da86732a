"""What reading a native event stream into chat-completion chunks takes, whatever the API.

The Anthropic Messages and Gemini readers differ in what their events say, and
in nothing else: both read `data:` lines as JSON objects under a byte cap,
hold a failure until the chunks before it were taken, write OpenAI
`chat.completion.chunk` dicts under the reply's id and model, close with a
usage chunk, and refuse what they cannot read with the provider's name and
the text read so far. `NativeStream` is that common half, so the two cannot
drift apart on it; each reader keeps only its events' meaning.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import orjson

from panelgate.upstream.errors import Kind, UpstreamBadReply, UpstreamStatusError, redact
from panelgate.upstream.held_failure import HeldFailure
from panelgate.upstream.retry import is_retry_status
from panelgate.upstream.sse_lines import SseLines

_SNIPPET_CHARS = 120

EventReader = Callable[[dict[str, Any]], list[dict[str, Any]]]
"""A reader's own part: the chunks one event (a JSON object) stands for."""


class NativeStream:
    """One reply's event stream, read by `read_event` into chat-completion chunks; no I/O."""

    def __init__(self, provider: str, max_bytes: int, read_event: EventReader, *, reply_id: str) -> None:
        self.provider = provider
        self.max_bytes = max_bytes
        self.reply_id = reply_id
        """The `id` of every chunk; a reader sets it once its events name the reply."""
        self.model = ""
        self.text: list[str] = []
        """The reply's text so far, carried by every failure as its partial text."""
        self._read_event = read_event
        self._created = int(time.time())
        self._size = 0
        self._lines = SseLines(self._not_a_stream)
        self._held = HeldFailure()

    @property
    def events(self) -> int:
        """How many events were read so far."""
        return self._lines.events

    def feed(self, data: bytes) -> list[dict[str, Any]]:
        self._held.raise_held()
        self._size += len(data)
        if self._size > self.max_bytes:
            raise self.bad(f"the reply passed the {self.max_bytes:,}-byte cap")
        return self._read(self._lines.feed(data))

    def close(self) -> list[dict[str, Any]]:
        """The chunks of a last line without a line end; refuses a stream that had no events.
        Whether the reply was complete is the reader's to judge."""
        self._held.raise_held()
        chunks = self._read(self._lines.close())
        self._held.raise_held()
        if not self._lines.events:
            raise self.bad("the endpoint answered with an event stream that had no events")
        return chunks

    def _read(self, payloads: Iterator[bytes]) -> list[dict[str, Any]]:
        """The chunks of these events; a failure after some chunks is held for the next call."""
        chunks: list[dict[str, Any]] = []
        with self._held.holding(chunks):
            for payload in payloads:
                chunks.extend(self._read_event(self._event(payload)))
        return chunks

    def _event(self, payload: bytes) -> dict[str, Any]:
        try:
            event = orjson.loads(payload)
        except orjson.JSONDecodeError:
            raise self.bad(f"the stream carried a malformed event: {self._snippet(payload)}") from None
        if not isinstance(event, dict):
            raise self.bad(f"the stream carried an event that is not an object: {self._snippet(payload)}")
        return event

    # ---- chunks ----------------------------------------------------------------------

    def chunk(self, delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {
            "id": self.reply_id,
            "object": "chat.completion.chunk",
            "created": self._created,
            "model": self.model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }

    def usage_chunk(self, tokens_in: int, tokens_out: int, *, reasoning: int = 0) -> dict[str, Any]:
        """The closing chunk: no choices, OpenAI's `usage` (reasoning tokens named when there are some)."""
        usage: dict[str, Any] = {
            "prompt_tokens": tokens_in,
            "completion_tokens": tokens_out,
            "total_tokens": tokens_in + tokens_out,
        }
        if reasoning:
            usage["completion_tokens_details"] = {"reasoning_tokens": reasoning}
        return {**self.chunk({}), "choices": [], "usage": usage}

    # ---- failures --------------------------------------------------------------------

    def bad(self, why: str) -> UpstreamBadReply:
        return UpstreamBadReply(
            f"`{self.provider}`: {why}", provider=self.provider, partial_text="".join(self.text)
        )

    def reported(self, wording: str, *, kind: Kind, status: int | None) -> UpstreamStatusError:
        """An error the endpoint reported inside its reply, worth a retry when its status is."""
        return UpstreamStatusError(
            f"`{self.provider}` reported an error inside its reply: {wording}",
            kind=kind,
            provider=self.provider,
            status=status,
            partial_text="".join(self.text),
            retryable=status is not None and is_retry_status(status),
        )

    def _snippet(self, data: bytes) -> str:
        return redact(data[:_SNIPPET_CHARS].decode("utf-8", "replace"))

    def _not_a_stream(self, line: bytes) -> UpstreamBadReply:
        snippet = self._snippet(line)
        return self.bad(f"the endpoint answered with something that is not an event stream: {snippet}")
