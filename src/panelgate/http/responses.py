"""Replies: JSON serialised with orjson (the hot path's serializer), and streamed bodies."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping
from typing import Any

import orjson
from starlette.responses import Response
from starlette.types import Receive, Scope, Send


def json_response(data: Any, status: int = 200, headers: Mapping[str, str] | None = None) -> Response:
    return Response(orjson.dumps(data), status_code=status, headers=headers, media_type="application/json")


class StreamedReply(Response):
    """A streamed body, sent as the panel's events come, what arrives together in one write.

    Starlette's StreamingResponse starts a task group per response to watch
    for the client leaving, so it can cancel the body; a panel never stops
    for a caller who leaves, so there is nothing to cancel, and that task was
    a measurable part of a streamed panel's cost. Once a client is gone the
    server drops what is still sent, and the body ends with the panel.

    The body is read by a task of its own while this one writes: a member's
    chunks mostly arrive several to a network read, and each write is a
    system call that wakes the client, so chunks read meanwhile are joined
    into one write (the last with the end of the body). The first chunk is
    read here, before that task starts: a panel's heading is ready at once,
    and goes out in the same turn of the loop as the head. Left to the task,
    it waited for everything already queued: in a crowd of a thousand
    streamed panels, every other panel's setup (first byte p50 1.2 s,
    `benchmarks/burst.py`).
    """

    def __init__(self, chunks: AsyncIterator[bytes], *, media_type: str, headers: Mapping[str, str]) -> None:
        self.chunks = chunks
        self.status_code = 200
        self.media_type = media_type
        self.background = None
        self.init_headers(headers)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": "http.response.start", "status": self.status_code, "headers": self.raw_headers})
        try:
            first = await anext(self.chunks)
        except StopAsyncIteration:
            await send({"type": "http.response.body", "body": b"", "more_body": False})
            return
        await send({"type": "http.response.body", "body": first, "more_body": True})
        read = _ReadAhead(self.chunks)
        try:
            while True:
                body, ended = await read.next_batch()
                if ended or body:
                    await send({"type": "http.response.body", "body": body, "more_body": not ended})
                if ended:
                    return
        finally:
            read.stop()


class _ReadAhead:
    """The chunks of a body, read by a task as they come and handed over in batches."""

    def __init__(self, chunks: AsyncIterator[bytes]) -> None:
        self._pending: list[bytes] = []
        self._ready = asyncio.Event()
        self._ended = False
        self._failure: BaseException | None = None
        self._task = asyncio.create_task(self._read(chunks))

    async def _read(self, chunks: AsyncIterator[bytes]) -> None:
        try:
            async for chunk in chunks:
                self._pending.append(chunk)
                self._ready.set()
        except Exception as exc:
            self._failure = exc
        finally:
            self._ended = True
            self._ready.set()

    async def next_batch(self) -> tuple[bytes, bool]:
        """Everything read since the last batch, and whether the body ended; raises what reading raised."""
        await self._ready.wait()
        self._ready.clear()
        body = b"".join(self._pending)
        self._pending.clear()
        if self._failure is not None:
            if not body:
                raise self._failure
            self._ready.set()  # what came before the failure goes out first
            return body, False
        return body, self._ended

    def stop(self) -> None:
        self._task.cancel()
