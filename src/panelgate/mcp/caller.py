"""Who is calling an MCP tool, read from what the access layer admitted for the HTTP request.

The access layer has already checked the credential by the time a tool runs;
it leaves the admitted gateway key in the request's ASGI state. The tool
takes the key's scope from there and from nowhere the client could write.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from panelgate.core.caller_scope import OPEN_SCOPE, CallerScope
from panelgate.store import GatewayKeyRecord


def scope_of_request(request: Any) -> CallerScope:
    """The caller scope of the HTTP request a tool call came in (open without a key)."""
    scope: Mapping[str, Any] = getattr(request, "scope", None) or {}
    key = scope.get("state", {}).get("gateway_key")
    return key.scope() if isinstance(key, GatewayKeyRecord) else OPEN_SCOPE
