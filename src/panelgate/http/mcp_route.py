"""`/mcp` and `/v1/mcp`: the MCP server's streamable HTTP transport, as an API surface.

The paths are gateway routes (`access/paths.py`), so a request reaches the
MCP server only with a gateway key when keys are required, and its tools see
that key's scope. A refusal on these paths (no key, a foreign host, a body
too large) is a JSON-RPC error, which MCP clients show to the person; any
other shape they replace with "the server returned an error".
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from mcp import types
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from panelgate.core.errors import GatewayError
from panelgate.http.access.paths import GATEWAY_EXACT

MCP_PATHS = frozenset(path for path in GATEWAY_EXACT if path.endswith("/mcp"))


class McpTransport:
    """An ASGI endpoint handing the request to this process's MCP server."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await scope["app"].state.services.mcp.handle(scope, receive, send)


class JsonRpcRefusal:
    """A refusal as a JSON-RPC error without a request id (the request was never read)."""

    def error_body(self, error: GatewayError) -> dict[str, Any]:
        code = types.INTERNAL_ERROR if error.status >= 500 else types.INVALID_REQUEST
        return {
            "jsonrpc": "2.0",
            "id": None,
            "error": {"code": code, "message": error.message, "data": {"status": error.status}},
        }


FORMAT = JsonRpcRefusal()
router = APIRouter()
for _path in sorted(MCP_PATHS):
    router.routes.append(Route(_path, McpTransport(), methods=["GET", "POST", "DELETE"]))


def owns(path: str) -> bool:
    return path in MCP_PATHS
