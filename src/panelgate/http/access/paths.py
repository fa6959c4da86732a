"""Which credential a path takes, from the path alone (never from what the client sends).

Gateway routes — the model APIs, `/bench/...` and MCP — take gateway keys;
the few open paths take nothing; everything else (the dashboard's pages and
its `/api/...`, the OpenAPI document) takes the login cookie or the admin
token. The Ollama API shares `/api/` with the admin API, so its paths are
named one by one.
"""

from __future__ import annotations

from enum import Enum

OLLAMA_PATHS = frozenset({"/api/chat", "/api/generate", "/api/tags", "/api/version", "/api/show", "/api/ps"})
UNTYPED_JSON_PATHS = frozenset({"/api/chat", "/api/generate", "/api/show"})
"""Ollama's writes: its clients and examples send JSON without a JSON type, which the route reads as
JSON or refuses (415) when it is not; never from a page (a request with an `Origin`)."""
GATEWAY_PREFIXES = ("/v1/", "/v1beta/", "/bench/")
GATEWAY_EXACT = frozenset({"/mcp", "/v1/mcp"})
OPEN_PATHS = frozenset({"/health", "/login", "/logout", "/favicon.ico"})
OPEN_PREFIXES = ("/static/",)


class PathKind(Enum):
    GATEWAY = "gateway"
    ADMIN = "admin"
    OPEN = "open"


def kind_of(path: str) -> PathKind:
    if path.startswith(GATEWAY_PREFIXES) or path in OLLAMA_PATHS or path in GATEWAY_EXACT:
        return PathKind.GATEWAY
    if path in OPEN_PATHS or path.startswith(OPEN_PREFIXES):
        return PathKind.OPEN
    return PathKind.ADMIN
