"""`panelgate mcp`: the MCP server for stdio clients, forwarding to a running gateway.

Configure the client to run `panelgate mcp`; it reaches the server at
`--url` / `PANELGATE_URL` with `PANELGATE_KEY`, and waits up to
`PANELGATE_TIMEOUT` seconds for a panel. The bridge is imported inside the
command, so the other commands start fast.
"""

from __future__ import annotations

from panelgate.cli.client import Connection
from panelgate.cli.common import UrlOption


def mcp(url: UrlOption = None) -> None:
    """Serve MCP on stdin/stdout for clients that start a command (tools run on the server)."""
    from panelgate.mcp.stdio_bridge import Upstream, serve_stdio

    connection = Connection.from_env(url)
    serve_stdio(Upstream(url=connection.url, key=connection.gateway_key, timeout_s=connection.timeout_s))
