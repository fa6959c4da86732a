"""A member's answer as the engine hands it to a route format, and readers of what the format wrote.

Route formats are tested on their own, without an engine: a turn is built
from OpenAI chunks read by the engine's own `TurnReader` (so the pieces are
the ones a real turn carries), and a stream is read back as its named SSE
events, or by a vendor SDK through `sse_http_client`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx2
import orjson

from panelgate.core.route import RouteChunk, RouteEnded, RouteEvent, RouteStarted
from panelgate.core.turn import TurnReader
from panelgate.core.types import Heartbeat

BENCH = {"collection": "bench/core:route", "reply": "route", "conversation": "c1"}


def text_chunk(text: str) -> dict[str, Any]:
    return {"choices": [{"index": 0, "delta": {"content": text}}]}


def thought_chunk(text: str) -> dict[str, Any]:
    return {"choices": [{"index": 0, "delta": {"reasoning_content": text}}]}


def call_chunk(index: int, call_id: str, name: str, arguments: str = "") -> dict[str, Any]:
    """The first chunk of a tool call: its id and name, and the first of its arguments."""
    part = {
        "index": index,
        "id": call_id,
        "type": "function",
        "function": {"name": name, "arguments": arguments},
    }
    return {"choices": [{"index": 0, "delta": {"tool_calls": [part]}}]}


def arguments_chunk(index: int, arguments: str) -> dict[str, Any]:
    """More of the arguments of the call at `index`."""
    part = {"index": index, "function": {"arguments": arguments}}
    return {"choices": [{"index": 0, "delta": {"tool_calls": [part]}}]}


def finish_chunk(reason: str, **usage: int) -> dict[str, Any]:
    chunk: dict[str, Any] = {"choices": [{"index": 0, "delta": {}, "finish_reason": reason}]}
    if usage:
        chunk["usage"] = usage
    return chunk


def turn(
    *chunks: dict[str, Any], bench: dict[str, Any] = BENCH, beat_after: int | None = None
) -> list[RouteEvent]:
    """`RouteStarted`, a `RouteChunk` per chunk (a `Heartbeat` after chunk `beat_after`), then
    `RouteEnded` with what the reader gathered."""
    reader = TurnReader(call_id_prefix="call_c1_1")
    events: list[RouteEvent] = [RouteStarted("c1", "c1.1", "m1", "served-m1")]
    for number, chunk in enumerate(chunks):
        events.append(RouteChunk(chunk, tuple(reader.feed(chunk))))
        if number == beat_after:
            events.append(Heartbeat())
    events.append(
        RouteEnded(
            bench=bench,
            finish_reason=reader.finish_reason,
            usage=reader.usage,
            text=reader.text,
            reasoning=reader.reasoning,
            tool_calls=tuple(reader.tool_calls),
        )
    )
    return events


async def feed(events: list[RouteEvent]) -> AsyncIterator[RouteEvent]:
    """The events as the engine hands them to `stream_route`."""
    for event in events:
        yield event


def named_events(raw: bytes) -> list[tuple[str, dict[str, Any]]]:
    """Each event of a stream that names its events (`event:` then `data:`); a keep-alive comment
    as ("keep-alive", {})."""
    events = []
    for block in raw.decode().split("\n\n"):
        if block == ": keep-alive":
            events.append(("keep-alive", {}))
        elif block:
            head, data = block.split("\n")
            events.append((head.removeprefix("event: "), orjson.loads(data.removeprefix("data: "))))
    return events


def sse_http_client(raw: bytes) -> httpx2.Client:
    """An HTTP client that answers every request with `raw` as an event stream, for an SDK to read."""
    transport = httpx2.MockTransport(
        lambda _: httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=raw)
    )
    return httpx2.Client(transport=transport)
