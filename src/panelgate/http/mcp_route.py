"""`/mcp` and `/v1/mcp`: the MCP server's streamable HTTP transport, as one of the gateway's APIs.

The paths are gateway routes (rows of `gateway_table`), so a request reaches the
MCP server only with a gateway key when keys are required, and its tools see
that key's scope. A refusal on these paths (no key, a foreign host, a body
too large) is a JSON-RPC error, which MCP clients show to the person; any
other shape they replace with "the server returned an error".
"""

from __future__ import annotations

from typing import Any

from starlette.types import Receive, Scope, Send

from panelgate.core.errors import GatewayError
from panelgate.http.gateway_table import Api, GatewayRoute

MCP_PATHS = ("/mcp", "/v1/mcp")
# JSON-RPC 2.0's error codes, written here so this module does not import the MCP SDK (http/mcp_on_demand.py).
INVALID_REQUEST = -32600
INTERNAL_ERROR = -32603


class McpTransport:
    """An ASGI endpoint handing the request to this process's MCP server."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await scope["app"].state.services.mcp.handle(scope, receive, send)


class JsonRpcRefusal:
    """A refusal as a JSON-RPC error without a request id (the request was never read)."""

    def error_body(self, error: GatewayError) -> dict[str, Any]:
        code = INTERNAL_ERROR if error.status >= 500 else INVALID_REQUEST
        return {
            "jsonrpc": "2.0",
            "id": None,
            "error": {"code": code, "message": error.message, "data": {"status": error.status}},
        }


_TRANSPORT = McpTransport()
API = Api(
    "MCP",
    JsonRpcRefusal(),
    tuple(
        GatewayRoute(method, path, None, "the MCP server (streamable HTTP)", asgi=_TRANSPORT)
        for path in MCP_PATHS
        for method in ("GET", "POST", "DELETE")
    ),
)
