"""Replies: JSON serialised with orjson (the hot path's serializer), and streamed bodies."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from typing import Any

import orjson
from starlette.responses import Response
from starlette.types import Receive, Scope, Send


def json_response(data: Any, status: int = 200, headers: Mapping[str, str] | None = None) -> Response:
    return Response(orjson.dumps(data), status_code=status, headers=headers, media_type="application/json")


class StreamedReply(Response):
    """A streamed body, sent chunk by chunk as the panel's events come.

    Starlette's StreamingResponse starts a task group per response to watch
    for the client leaving, so it can cancel the body; a panel never stops
    for a caller who leaves, so there is nothing to cancel, and that task was
    a measurable part of a streamed panel's cost. Once a client is gone the
    server drops what is still sent, and the body ends with the panel.
    """

    def __init__(self, chunks: AsyncIterator[bytes], *, media_type: str, headers: Mapping[str, str]) -> None:
        self.chunks = chunks
        self.status_code = 200
        self.media_type = media_type
        self.background = None
        self.init_headers(headers)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": "http.response.start", "status": self.status_code, "headers": self.raw_headers})
        async for chunk in self.chunks:
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})
