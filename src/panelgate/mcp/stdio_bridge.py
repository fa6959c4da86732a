"""`panelgate mcp`: an MCP server on stdin/stdout that hands every call to a running gateway.

Stdio clients (editors, desktop apps) start a command rather than open a URL.
This process lists the gateway's tools and forwards each call to `/mcp` over
streamable HTTP with the configured key, passing progress notifications back
as they arrive, so the tools, their words and their rules exist once: in
the server. Nothing but MCP messages goes to stdout.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import anyio
import httpx2
from mcp import Client, types
from mcp.client.streamable_http import streamable_http_client
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError

from panelgate import __version__
from panelgate.mcp.tool_texts import INSTRUCTIONS

UNREACHABLE = (
    "cannot reach the panelgate server at {url}: start it with `panelgate serve`, or set PANELGATE_URL"
)


@dataclass(frozen=True)
class Upstream:
    """The gateway this bridge forwards to."""

    url: str
    """The gateway's base URL, e.g. http://127.0.0.1:8122."""
    key: str | None
    timeout_s: float

    @property
    def endpoint(self) -> str:
        return f"{self.url.rstrip('/').removesuffix('/v1')}/mcp"

    def http_client(self) -> httpx2.AsyncClient:
        headers = {"Authorization": f"Bearer {self.key}"} if self.key else {}
        return httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(self.timeout_s, connect=10.0))


def bridge_server(upstream: Upstream) -> Server[Any]:
    """A stdio-side server whose tools are the gateway's, each call forwarded."""

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        async with _reached(upstream) as client:
            return await client.list_tools()

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        async def forward_progress(progress: float, total: float | None, message: str | None) -> None:
            await ctx.session.report_progress(progress, total, message)

        async with _reached(upstream) as client:
            return await client.call_tool(
                params.name, params.arguments or {}, progress_callback=forward_progress
            )

    return Server(
        "panelgate",
        version=__version__,
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


@asynccontextmanager
async def _reached(upstream: Upstream) -> AsyncIterator[Client]:
    """A client session with the gateway for one call; any failure becomes the MCP error to show."""
    try:
        async with upstream.http_client() as http:
            transport = streamable_http_client(upstream.endpoint, http_client=http)
            async with Client(transport, read_timeout_seconds=upstream.timeout_s) as client:
                yield client
    except Exception as failure:
        raise _as_mcp_error(failure, upstream.url) from None


def _leaves(failure: BaseException) -> Iterator[BaseException]:
    if isinstance(failure, BaseExceptionGroup):
        for inner in failure.exceptions:
            yield from _leaves(inner)
    else:
        yield failure


def _as_mcp_error(failure: Exception, url: str) -> MCPError:
    """The gateway's own refusal when it sent one, else why it could not be reached."""
    leaves = list(_leaves(failure))
    for leaf in leaves:
        if isinstance(leaf, MCPError):
            return leaf
    if any(isinstance(leaf, httpx2.TransportError) for leaf in leaves):
        return MCPError(types.INTERNAL_ERROR, UNREACHABLE.format(url=url))
    kinds = ", ".join(sorted({type(leaf).__name__ for leaf in leaves}))
    return MCPError(types.INTERNAL_ERROR, f"the call to the panelgate server at {url} failed ({kinds})")


def serve_stdio(upstream: Upstream) -> None:
    server = bridge_server(upstream)

    async def main() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(main)
