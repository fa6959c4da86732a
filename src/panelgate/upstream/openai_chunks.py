"""Route turns to OpenAI-compatible endpoints: the body goes as sent, the chunks come back as sent.

Route mode promises chat-completions callers the member's own chunks, tool-call
deltas byte for byte, so this reader hands on each chunk as the upstream wrote
it (after the same checks the panel reader makes: `openai_chat.ChatReplyReader`
refuses malformed chunks, error chunks, early ends and oversized replies). An
endpoint that ignores `stream: true` and answers one whole completion is
turned into the one chunk it stands for.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from panelgate.upstream import openai_chat
from panelgate.upstream.held_failure import HeldFailure
from panelgate.upstream.request_json import request_json


class ChatOutbound:
    name = "chat"

    def url(self, base_url: str, served_id: str) -> str:
        return base_url + openai_chat.CHAT_PATH

    def headers(self, key: str | None, extra: Mapping[str, str]) -> dict[str, str]:
        return openai_chat.request_headers(key, extra)

    def body(self, served_id: str, chat_body: Mapping[str, Any]) -> bytes:
        return self.body_with(served_id, chat_body, stream_options=True)

    def body_with(self, served_id: str, chat_body: Mapping[str, Any], *, stream_options: bool) -> bytes:
        """The body, asking for usage in the stream unless the endpoint refused that before."""
        body = {**chat_body, "model": served_id, "stream": True}
        if stream_options:
            body["stream_options"] = {"include_usage": True}
        else:
            body.pop("stream_options", None)
        return request_json(body)

    def reader(self, provider: str, max_bytes: int) -> ChatChunkReader:
        return ChatChunkReader(provider, max_bytes)

    def error_text(self, body: bytes) -> str:
        return openai_chat.error_text(body)


class ChatChunkReader:
    """Chunks in the order they came; a failure is raised after the chunks before it were taken."""

    def __init__(self, provider: str, max_bytes: int) -> None:
        self._chunks: list[dict[str, Any]] = []
        self._held = HeldFailure()
        self._reader = openai_chat.ChatReplyReader(provider, max_bytes, on_chunk=self._take)

    def feed(self, data: bytes) -> list[dict[str, Any]]:
        return self._read(self._reader.feed(data))

    def close(self) -> list[dict[str, Any]]:
        return self._read(self._reader.close())

    def _read(self, pieces: Iterator[str]) -> list[dict[str, Any]]:
        self._held.raise_held()
        with self._held.holding(self._chunks):
            for _ in pieces:
                pass
        return self._taken()

    def _take(self, chunk: dict[str, Any]) -> None:
        self._chunks.append(_as_chunk(chunk))

    def _taken(self) -> list[dict[str, Any]]:
        taken, self._chunks = self._chunks, []
        return taken


def _as_chunk(reply: dict[str, Any]) -> dict[str, Any]:
    """A chunk as is; a whole completion as the one chunk that says the same."""
    choices = reply.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        return reply
    if "message" not in choices[0]:
        return reply
    chunk = {**reply, "object": "chat.completion.chunk"}
    chunk["choices"] = [
        {"index": c.get("index", 0), "delta": c.get("message") or {}, "finish_reason": c.get("finish_reason")}
        for c in choices
        if isinstance(c, dict)
    ]
    return chunk
