"""A raw HTTP/1.1 server on 127.0.0.1, scripted per connection, that counts its connections.

The pool's tests need a server that does what well-behaved fakes never do:
drop a kept-alive connection just as a request arrives, cut a reply after
its head, or hold requests long enough to count how many connections are
open at once. Each connection follows its plan (`plans[n]` for the n-th
connection, one step per request; "answer" once the plan runs out):

    answer        a short JSON chat completion, kept alive
    drop          close without a word (FIN) once the request arrived
    reset         the same with a TCP reset
    head-only     the reply's head promising 50 bytes, then close
    half-head     `HTTP/1.1 200` and nothing more, then close

`answered` lists (connection number, the request's `x-n` header) for each
request answered; `arrived` the same for every request read.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import struct
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

ANSWER = (
    b'{"id":"c1","object":"chat.completion","model":"m1","choices":[{"index":0,'
    b'"message":{"role":"assistant","content":"hello"},"finish_reason":"stop"}],'
    b'"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}'
)


@dataclass
class RawServer:
    plans: list[list[str]] = field(default_factory=list)
    delay: float = 0.0
    port: int = 0
    connections: int = 0
    open_now: int = 0
    most_open: int = 0
    answered: list[tuple[int, str]] = field(default_factory=list)
    arrived: list[tuple[int, str]] = field(default_factory=list)
    writers: list[asyncio.StreamWriter] = field(default_factory=list)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        number = self.connections
        plan = list(self.plans[number - 1]) if number <= len(self.plans) else []
        self.writers.append(writer)
        self.open_now += 1
        self.most_open = max(self.most_open, self.open_now)
        try:
            while (tag := await _read_request(reader)) is not None:
                self.arrived.append((number, tag))
                step = plan.pop(0) if plan else "answer"
                if self.delay:
                    await asyncio.sleep(self.delay)
                if not await self._act(step, writer):
                    return
                self.answered.append((number, tag))
        except ConnectionError:
            return
        finally:
            self.open_now -= 1
            writer.close()

    async def _act(self, step: str, writer: asyncio.StreamWriter) -> bool:
        """Carry out one step; False when the connection ends here."""
        if step == "answer":
            head = b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: %d\r\n\r\n"
            writer.write(head % len(ANSWER) + ANSWER)
            await writer.drain()
            return True
        if step == "reset":
            sock = writer.get_extra_info("socket")
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            writer.transport.abort()
        elif step == "head-only":
            writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: 50\r\n\r\n")
            await writer.drain()
        elif step == "half-head":
            writer.write(b"HTTP/1.1 200")
            await writer.drain()
        return False


async def _read_request(reader: asyncio.StreamReader) -> str | None:
    """The next request's `x-n` header (after reading its body), or None when the client closed."""
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError:
        return None
    headers = dict(
        line.decode("latin-1").lower().split(":", 1) for line in head.split(b"\r\n")[1:] if b":" in line
    )
    await reader.readexactly(int(headers.get("content-length", "0")))
    return headers.get("x-n", "").strip()


@contextlib.asynccontextmanager
async def raw_server(*plans: list[str], delay: float = 0.0) -> AsyncIterator[RawServer]:
    server = RawServer(list(plans), delay)
    listening = await asyncio.start_server(server.serve, "127.0.0.1", 0)
    server.port = listening.sockets[0].getsockname()[1]
    async with listening:
        yield server
        for writer in server.writers:  # let every handler end before the loop does
            writer.close()
        await asyncio.sleep(0.01)
