"""The contract for calling one upstream API in route mode.

A route turn is one OpenAI chat-completions body (`core.route.RouteRequest.body`)
sent to one member. Members on OpenAI-compatible endpoints get it as is; members
on endpoints that speak another API (native Anthropic Messages, Gemini) get it
translated by that API's `OutboundApi`, and their streamed reply is read back
into OpenAI chat-completion chunks, so the engine and every inbound format see
one shape whatever the member speaks.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol


class ChunkReader(Protocol):
    """Reads one streamed reply; no I/O. Raises `UpstreamBadReply` for bytes it cannot read."""

    def feed(self, data: bytes) -> list[dict[str, Any]]:
        """OpenAI `chat.completion.chunk` dicts for the bytes so far (kept partial lines wait)."""
        ...

    def close(self) -> list[dict[str, Any]]:
        """What is left when the reply ended; raises `UpstreamBadReply` if it ended too early."""
        ...


class OutboundApi(Protocol):
    """How to send a route turn to an endpoint that speaks one API, and read its stream."""

    name: str
    """The endpoint `api` value this serves: `chat`, `anthropic`, `gemini`."""

    def url(self, base_url: str, served_id: str) -> str:
        """Where the streamed call goes (`base_url` as configured, without a trailing slash)."""
        ...

    def headers(self, key: str | None, extra: Mapping[str, str]) -> dict[str, str]:
        """Request headers: content type, the key as this API expects it, then the endpoint's own."""
        ...

    def body(self, served_id: str, chat_body: Mapping[str, Any]) -> bytes:
        """The streamed request for `chat_body` (OpenAI chat-completions fields, no `model`/`stream`)."""
        ...

    def reader(self, provider: str, max_bytes: int) -> ChunkReader:
        """A fresh reader for one reply, refusing more than `max_bytes`."""
        ...

    def error_text(self, body: bytes) -> str:
        """The human part of an error reply's body."""
        ...
