"""Hub adapters: telling a LiteLLM proxy, Open WebUI or CLI Proxy API to serve one more model.

Callers use `hub_for(endpoint, keys, http, refused)` and the `Hub`
protocol: `version()`, `connections()`, `plan(model, connection)` (a dry
run) and `add(model, connection)`. Refusals are `HubError`s.

Each name is imported from its module when first used
(`core/package_on_demand.py`): a gateway process holds `RefusedKeys` from
start, and the adapters only once a person works with a hub.
"""

from typing import TYPE_CHECKING

from panelgate.core.package_on_demand import exports_on_demand

if TYPE_CHECKING:
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

_WHERE = {
    **dict.fromkeys(
        ("HubDenied", "HubError", "HubRefused", "HubUnreachable", "NoSuchConnection", "NotAHub"), "errors"
    ),
    **dict.fromkeys(("ADAPTERS", "hub_for"), "lookup"),
    **dict.fromkeys(("Added", "Connection", "Hub", "HubRequest", "Plan", "is_checked"), "protocol"),
    "RefusedKeys": "refused_keys",
    "admin_client": "wire",
}
__getattr__ = exports_on_demand(__name__, _WHERE)

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
