"""The MCP server of one gateway process, started by the first `/mcp` request instead of at start.

Importing the MCP SDK is about a quarter of the gateway's start (0.45 s of
1.7 s of imports), and most gateways never see an MCP client. So the SDK is
imported (in a thread, so the event loop keeps answering) and the server's
transport started when the first MCP request comes; every later request
finds it running, at the cost of one attribute check. The transport runs in
a task of its own, so its task group is entered and left by the same task,
and the app's shutdown stops it (`aclose`).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from starlette.types import Receive, Scope, Send

from panelgate.engine.entry import Entry
from panelgate.store import Database

if TYPE_CHECKING:
    from panelgate.mcp.server import McpGateway


class McpOnDemand:
    def __init__(self, db: Database, entry: Entry) -> None:
        self._db = db
        self._entry = entry
        self._running: McpGateway | None = None
        self._starting: asyncio.Future[McpGateway] | None = None
        self._task: asyncio.Task[None] | None = None
        self._stop = asyncio.Event()

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        server = self._running or await self._started()
        await server.handle(scope, receive, send)

    async def _started(self) -> McpGateway:
        if self._starting is None:
            self._starting = asyncio.get_running_loop().create_future()
            self._task = asyncio.create_task(self._serve(self._starting), name="panelgate-mcp")
        # Shielded: a client that hangs up while the server starts must not cancel the start for the others.
        return await asyncio.shield(self._starting)

    async def _serve(self, starting: asyncio.Future[McpGateway]) -> None:
        try:
            gateway_class = await asyncio.to_thread(_import_server)
            server = gateway_class(self._db, self._entry)
            async with server.running():
                self._running = server
                starting.set_result(server)
                await self._stop.wait()
        except Exception as failed:  # the requests waiting get it; the next request tries again
            self._starting = None
            if not starting.done():
                starting.set_exception(failed)
                return
            raise
        finally:
            self._running = None

    async def aclose(self) -> None:
        """Stop the server if a request started it (the app's shutdown)."""
        self._stop.set()
        if self._task is not None:
            await self._task


def _import_server() -> type[McpGateway]:
    from panelgate.mcp.server import McpGateway

    return McpGateway
