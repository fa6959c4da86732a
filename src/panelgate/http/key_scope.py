"""The request's caller scope: what its gateway key may see and use (rules in `core.caller_scope`).

The access layer puts the admitted key on `request.state`; without one
(loopback, keys not required) the scope is open.
"""

from __future__ import annotations

from starlette.requests import Request

from panelgate.core.caller_scope import OPEN_SCOPE, CallerScope
from panelgate.http.services import services
from panelgate.store import GatewayKeyRecord


def caller_scope(request: Request) -> CallerScope:
    key: GatewayKeyRecord | None = getattr(request.state, "gateway_key", None)
    return OPEN_SCOPE if key is None else key.scope()


def allowed_collections(request: Request) -> frozenset[str] | None:
    """The collection names this request may use; None for every one."""
    return caller_scope(request).collections


async def visible_collections(request: Request) -> list[str]:
    """The names of the collections on the bench that this request may use."""
    return caller_scope(request).visible((await services(request).db.bench.snapshot()).collections)
