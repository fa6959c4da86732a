"""uvicorn for in-process test gateways: stops as soon as it is told, not on its next tick.

A stock `uvicorn.Server` notices `should_exit` on a 0.1 s tick and then
sleeps another 0.1 s before closing connections; with a gateway per test that
is most of a test's time. This one wakes the moment `stop_soon` is called (from
any thread) and, with no connection or task left, closes without waiting.
Connections still open are asked to close and waited for, as uvicorn does.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket

import uvicorn

TICK_S = 0.1
"""How often the server's own housekeeping (the Date header) runs, as in uvicorn."""
POLL_S = 0.005


class PromptServer(uvicorn.Server):
    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        await super().startup(sockets)

    def stop_soon(self) -> None:
        """Ask the server to stop; safe from any thread, before or after it started."""
        self.should_exit = True
        if self._loop is not None and self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)

    async def main_loop(self) -> None:
        assert self._stop is not None
        counter = 0
        while not self.should_exit:
            if await self.on_tick(counter):
                return
            counter += 1
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stop.wait(), TICK_S)

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        for server in self.servers:
            server.close()
        for connection in list(self.server_state.connections):
            connection.shutdown()
        while self.server_state.connections or self.server_state.tasks:
            await asyncio.sleep(POLL_S)
        for server in self.servers:
            await server.wait_closed()
        await self.lifespan.shutdown()
