"""Which credential a path takes, from the path alone (never from what the client sends).

Gateway routes — the model APIs of `gateway_table`, `/bench/...` — take
gateway keys; the few open paths take nothing; everything else (the
dashboard's pages and its `/api/...`, the OpenAPI document) takes the login
cookie or the admin token. The Ollama API shares `/api/` with the admin API,
which is why the model APIs' paths come from their table and not a prefix.
"""

from __future__ import annotations

from enum import Enum

from panelgate.http.gateway_table import GatewayTable

GATEWAY_PREFIXES = ("/bench/",)
OPEN_PATHS = frozenset({"/health", "/login", "/logout", "/favicon.ico", "/connect/callback"})
OPEN_PREFIXES = ("/static/", "/connect/callback/")
"""`/connect/callback`: the browser comes back from a provider's sign-in page without the admin token;
only a pending sign-in's single-use state is accepted there (`http/connect_callback.py`)."""
METRICS_PATH = "/metrics"
"""Admin unless the settings open it (`AccessPolicy.metrics_public`)."""


class PathKind(Enum):
    GATEWAY = "gateway"
    ADMIN = "admin"
    OPEN = "open"


def kind_of(path: str, table: GatewayTable, *, metrics_public: bool = False) -> PathKind:
    if path.startswith(GATEWAY_PREFIXES) or table.api_for(path) is not None:
        return PathKind.GATEWAY
    if path in OPEN_PATHS or path.startswith(OPEN_PREFIXES) or (metrics_public and path == METRICS_PATH):
        return PathKind.OPEN
    return PathKind.ADMIN
