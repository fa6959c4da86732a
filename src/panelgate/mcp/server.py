"""The MCP server inside the gateway: the SDK's low-level server, five tools, streamable HTTP.

Stateless streamable HTTP: every request stands alone, so any gateway
process can answer any request of a client and nothing is lost when one
restarts; the SDK still streams a tool call's progress notifications on the
request's own response. Tool calls reach the engine in process with the
scope the access layer admitted for that HTTP request. A refusal (unknown
collection, a key's scope, a bad argument) is a tool result marked as an
error, in words the agent can act on.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from typing import Any

from mcp import types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.shared.exceptions import MCPError
from starlette.types import Receive, Scope, Send

from panelgate import __version__
from panelgate.core.errors import GatewayError
from panelgate.engine.entry import Entry
from panelgate.mcp.caller import scope_of_request
from panelgate.mcp.collections_tool import list_collections
from panelgate.mcp.judging_tools import pending_verdicts, verdict
from panelgate.mcp.panel_tool import ask_panel
from panelgate.mcp.record_tool import record
from panelgate.mcp.tool_texts import INSTRUCTIONS, TOOLS, refusal
from panelgate.store import Database, StoreError

log = logging.getLogger(__name__)


def _utcnow() -> datetime:
    return datetime.now(UTC)


class McpGateway:
    """The MCP tools over one gateway process's database and its way in (`engine.entry`)."""

    def __init__(self, db: Database, entry: Entry, *, now: Callable[[], datetime] = _utcnow) -> None:
        self._db = db
        self._entry = entry
        self._now = now
        self.server: Server[Any] = Server(
            "panelgate",
            version=__version__,
            instructions=INSTRUCTIONS,
            on_list_tools=self._list_tools,
            on_call_tool=self._call_tool,
        )
        self._sessions = StreamableHTTPSessionManager(app=self.server, stateless=True)

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """The HTTP transport's task group, for the app's lifespan."""
        async with self._sessions.run():
            yield

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self._sessions.handle_request(scope, receive, send)

    async def _list_tools(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=list(TOOLS))

    async def _call_tool(
        self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        scope = scope_of_request(ctx.request)
        arguments = params.arguments or {}

        async def progress(done: float, total: float | None, message: str) -> None:
            await ctx.session.report_progress(done, total, message)

        try:
            if params.name == "ask":
                return await ask_panel(self._entry, scope, arguments, progress)
            if params.name == "verdict":
                return await verdict(self._db, scope, arguments)
            if params.name == "pending_verdicts":
                return await pending_verdicts(self._db, scope, self._now)
            if params.name == "list_collections":
                return await list_collections(self._db, scope)
            if params.name == "record":
                return await record(self._db, scope, arguments)
        except (GatewayError, StoreError) as refused:
            return refusal(str(refused))
        names = ", ".join(tool.name for tool in TOOLS)
        raise MCPError(code=types.INVALID_PARAMS, message=f"no tool `{params.name}`; the tools are {names}")
