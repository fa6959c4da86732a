"""Route turns to native Anthropic Messages endpoints: the `OutboundApi` for `api: anthropic`.

A member on `api: anthropic` is asked with `POST <base_url>/messages`, the
chat body translated by `anthropic_request`, and its SSE reply
(`message_start` … `message_stop`) is read back into OpenAI
`chat.completion.chunk` dicts by `anthropic_stream`, so the engine reads it
like any other member. This module holds what is left: where the request
goes, its headers, and the words of an error reply.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from panelgate.upstream.anthropic_request import request_body
from panelgate.upstream.anthropic_stream import AnthropicChunkReader
from panelgate.upstream.request_json import request_json

ANTHROPIC_VERSION = "2023-06-01"


class AnthropicOutbound:
    """`OutboundApi` for endpoints that speak Anthropic Messages."""

    name = "anthropic"

    def url(self, base_url: str, served_id: str) -> str:
        return base_url + "/messages"

    def headers(self, key: str | None, extra: Mapping[str, str]) -> dict[str, str]:
        headers = {
            "content-type": "application/json",
            "accept": "text/event-stream",
            "anthropic-version": ANTHROPIC_VERSION,
        }
        if key:
            headers["x-api-key"] = key
        headers.update(extra)
        return headers

    def body(self, served_id: str, chat_body: Mapping[str, Any]) -> bytes:
        return request_json(request_body(served_id, chat_body))

    def reader(self, provider: str, max_bytes: int) -> AnthropicChunkReader:
        return AnthropicChunkReader(provider, max_bytes)

    def error_text(self, body: bytes) -> str:
        """`<type>: <message>` from `{"type": "error", "error": {...}}`, else the raw text."""
        try:
            parsed = orjson.loads(body)
        except orjson.JSONDecodeError:
            return body.decode("utf-8", "replace")
        error = parsed.get("error") if isinstance(parsed, dict) else None
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            kind = error.get("type")
            return f"{kind}: {error['message']}" if isinstance(kind, str) else error["message"]
        if isinstance(error, str):
            return error
        return body.decode("utf-8", "replace")
