"""Calling a native-API member in the tests, and reading the chunks it streams back.

The Anthropic Messages and Gemini adapters are tested the same way: a chat
body is translated by the adapter, sent through a real socket to the fake of
that service (`tests.support.native_fakes`), and the reply's bytes are read
back by the adapter's chunk reader, as the engine would. `NativeMember` does
that for one adapter; the readers below pick out of the chunks what the tests
look at.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypeVar

import orjson

from panelgate.core.turn import TurnReader
from panelgate.upstream.outbound import ChunkReader, OutboundApi
from panelgate.upstream.transport import HttpPool
from tests.support.upstream import FakeUpstream

Fake = TypeVar("Fake", bound=FakeUpstream)
READ_CAP = 1 << 20
"""The byte cap a reader gets unless a test is about the cap."""


def fresh(server: Fake) -> Fake:
    """The module's fake, forgetting every behaviour and request of earlier tests."""
    server.reset()
    server.require_key = None
    return server


def ask(text: str, **fields: Any) -> dict[str, Any]:
    """A chat body of one user message, and `fields`."""
    return {"messages": [{"role": "user", "content": text}], **fields}


@dataclass(frozen=True)
class NativeMember:
    """One member on a native API: `served_id` at a fake of the service, called with `key`
    (`dataclasses.replace` makes the same member called with another)."""

    api: OutboundApi
    served_id: str
    provider: str
    key: str

    def translated(self, chat: dict[str, Any]) -> dict[str, Any]:
        """The request body the adapter makes of `chat`."""
        body: dict[str, Any] = orjson.loads(self.api.body(self.served_id, chat))
        return body

    async def exchange(
        self, base_url: str, chat: dict[str, Any], *, body: bytes | None = None
    ) -> tuple[int, list[bytes]]:
        """POST the adapter's request (or `body`) through a real socket; the status and the body as read."""
        sent = self.api.body(self.served_id, chat) if body is None else body
        headers = self.api.headers(self.key, {})
        pool = HttpPool(connect_timeout=5.0, keepalive_s=5.0)
        try:
            request = pool.request("POST", self.api.url(base_url, self.served_id), headers, sent)
            async with request as reply:
                reads = []
                while data := await reply.read():
                    reads.append(data)
                return reply.status, reads
        finally:
            await pool.aclose()

    async def streamed(self, fake: FakeUpstream, chat: dict[str, Any]) -> list[bytes]:
        """The reads of a reply the fake streamed with status 200."""
        status, reads = await self.exchange(fake.url, chat)
        assert status == 200, b"".join(reads)
        return reads

    def reader(self, max_bytes: int = READ_CAP) -> ChunkReader:
        return self.api.reader(self.provider, max_bytes)

    def read_all(self, reads: list[bytes], max_bytes: int = READ_CAP) -> list[dict[str, Any]]:
        """Every chunk the reader makes of these reads, closing included."""
        reader = self.reader(max_bytes)
        chunks = [chunk for data in reads for chunk in reader.feed(data)]
        return chunks + reader.close()


def turn_of(chunks: list[dict[str, Any]]) -> TurnReader:
    """The chunks as the engine reads them."""
    turn = TurnReader()
    for chunk in chunks:
        turn.feed(chunk)
    return turn


def content_deltas(chunks: list[dict[str, Any]]) -> list[str]:
    """The `content` of each chunk whose delta says something (the opening role chunk's "" included)."""
    return [c["choices"][0]["delta"]["content"] for c in chunks if c["choices"] and c["choices"][0]["delta"]]


def finish_reasons(chunks: list[dict[str, Any]]) -> list[str | None]:
    return [c["choices"][0]["finish_reason"] for c in chunks if c["choices"]]


def text_of(chunks: list[dict[str, Any]]) -> str:
    return "".join(c["choices"][0]["delta"].get("content", "") for c in chunks)


def tool_call_deltas(chunks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The tool-call delta of each chunk that has one."""
    return [
        c["choices"][0]["delta"]["tool_calls"][0]
        for c in chunks
        if c["choices"] and "tool_calls" in c["choices"][0]["delta"]
    ]
