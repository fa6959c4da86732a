"""Route turns to native Gemini endpoints: the `OutboundApi` for `api: gemini`.

A member on `api: gemini` is asked with
`POST <base_url>/models/<id>:streamGenerateContent?alt=sse` (the key in
`x-goog-api-key`, never in the URL, so it cannot reach a log), the chat body
translated by `gemini_request`, and each `GenerateContentResponse` event is
read back into OpenAI `chat.completion.chunk` dicts by `gemini_stream`, so
the engine reads it like any other member. This module holds what is left:
where the request goes, its headers, and the words of an error reply.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

import orjson

from panelgate.upstream.gemini_request import request_body
from panelgate.upstream.gemini_stream import GeminiChunkReader
from panelgate.upstream.request_json import request_json


class GeminiOutbound:
    """`OutboundApi` for endpoints that speak Gemini `generateContent`."""

    name = "gemini"

    def url(self, base_url: str, served_id: str) -> str:
        """`models/<id>` unless the id names its own resource (`models/…`, `tunedModels/…`)."""
        resource = served_id if "/" in served_id else f"models/{served_id}"
        return f"{base_url}/{quote(resource, safe='/')}:streamGenerateContent?alt=sse"

    def headers(self, key: str | None, extra: Mapping[str, str]) -> dict[str, str]:
        headers = {"content-type": "application/json", "accept": "text/event-stream"}
        if key:
            headers["x-goog-api-key"] = key
        headers.update(extra)
        return headers

    def body(self, served_id: str, chat_body: Mapping[str, Any]) -> bytes:
        return request_json(request_body(chat_body))

    def reader(self, provider: str, max_bytes: int) -> GeminiChunkReader:
        return GeminiChunkReader(provider, max_bytes)

    def error_text(self, body: bytes) -> str:
        """`<message> (<STATUS>)` from `{"error": {...}}` (or a list holding one), else the raw text."""
        try:
            parsed = orjson.loads(body)
        except orjson.JSONDecodeError:
            return body.decode("utf-8", "replace")
        if isinstance(parsed, list) and parsed:
            parsed = parsed[0]
        error = parsed.get("error") if isinstance(parsed, dict) else None
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            status = error.get("status")
            return f"{error['message']} ({status})" if isinstance(status, str) else error["message"]
        return body.decode("utf-8", "replace")
