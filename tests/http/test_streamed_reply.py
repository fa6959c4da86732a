"""A streamed reply sends what is ready at once in the same turn of the loop as its head."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

from panelgate.http.responses import StreamedReply


async def test_a_heading_ready_at_once_goes_out_with_the_head_and_the_rest_as_it_comes():
    rest: asyncio.Future[bytes] = asyncio.get_running_loop().create_future()

    async def chunks() -> AsyncIterator[bytes]:
        yield b"heading\n"
        yield await rest
        yield b"end\n"

    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    async def receive() -> dict[str, Any]:
        raise AssertionError("a streamed reply does not read the request")

    reply = StreamedReply(chunks(), media_type="text/event-stream", headers={})
    writing = asyncio.create_task(reply({"type": "http"}, receive, send))
    await asyncio.sleep(0)  # one turn: the reply's task has taken its first step
    assert [m["type"] for m in sent] == ["http.response.start", "http.response.body"]
    assert (sent[1]["body"], sent[1]["more_body"]) == (b"heading\n", True)
    rest.set_result(b"answer\n")
    await writing
    bodies = b"".join(m["body"] for m in sent[1:])
    assert bodies == b"heading\nanswer\nend\n"
    assert sent[-1]["more_body"] is False


async def test_an_empty_body_ends_at_once():
    async def chunks() -> AsyncIterator[bytes]:
        return
        yield b""

    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await StreamedReply(chunks(), media_type="text/plain", headers={})({"type": "http"}, None, send)  # type: ignore[arg-type]
    assert [(m["type"], m.get("body"), m.get("more_body")) for m in sent] == [
        ("http.response.start", None, None),
        ("http.response.body", b"", False),
    ]
