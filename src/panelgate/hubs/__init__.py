"""Hub adapters: telling a LiteLLM proxy, Open WebUI or CLI Proxy API to serve one more model.

Callers use `hub_for(endpoint, keys, http, refused)` and the `Hub`
protocol: `version()`, `connections()`, `plan(model, connection)` (a dry
run) and `add(model, connection)`. Refusals are `HubError`s.
"""

from panelgate.hubs.errors import (
    HubDenied,
    HubError,
    HubRefused,
    HubUnreachable,
    NoSuchConnection,
    NotAHub,
)
from panelgate.hubs.lookup import ADAPTERS, hub_for
from panelgate.hubs.protocol import Added, Connection, Hub, HubRequest, Plan, is_checked
from panelgate.hubs.refused_keys import RefusedKeys
from panelgate.hubs.wire import admin_client

__all__ = [
    "ADAPTERS",
    "Added",
    "Connection",
    "Hub",
    "HubDenied",
    "HubError",
    "HubRefused",
    "HubRequest",
    "HubUnreachable",
    "NoSuchConnection",
    "NotAHub",
    "Plan",
    "RefusedKeys",
    "admin_client",
    "hub_for",
    "is_checked",
]
