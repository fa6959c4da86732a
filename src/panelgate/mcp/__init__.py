"""MCP on the official SDK: tools that ask a panel, judge its seats and list collections.

Served at `/mcp` (streamable HTTP) inside the gateway, calling the engine in
process with the caller's scope; `panelgate mcp` bridges stdio clients to it.
"""
