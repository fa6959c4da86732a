"""What the request's gateway key may see: its collections, and nothing of the others.

The access layer puts the admitted key on `request.state`; a key with a
collection scope may ask only those collections, sees only them in every
model listing, and can judge or read back only their calls. Without a key
(loopback, keys not required) or with an unscoped key, everything is open.
"""

from __future__ import annotations

from collections.abc import Sequence

from starlette.requests import Request

from panelgate.core.errors import BadRequest, Forbidden
from panelgate.http.services import services
from panelgate.store import GatewayKeyRecord


def gateway_key(request: Request) -> GatewayKeyRecord | None:
    return getattr(request.state, "gateway_key", None)


def allowed_collections(request: Request) -> frozenset[str] | None:
    """The collection names this request may use; None for every one."""
    key = gateway_key(request)
    return None if key is None or key.collections is None else frozenset(key.collections)


async def visible_collections(request: Request) -> list[str]:
    """The names of the collections on the bench that this request may use."""
    allowed = allowed_collections(request)
    names = (await services(request).db.bench.snapshot()).collections
    return sorted(name for name in names if allowed is None or name in allowed)


async def check_nominees(request: Request, nominees: Sequence[str]) -> None:
    """Refuse (403) seating ad hoc models through `with` for a key not made to."""
    key = gateway_key(request)
    if key is None or key.ad_hoc or not nominees:
        return
    roster = (await services(request).db.bench.snapshot()).roster
    ad_hoc = [alias for alias in nominees if alias in roster and roster[alias].ad_hoc]
    if ad_hoc:
        named = ", ".join(f"`{alias}`" for alias in ad_hoc)
        raise Forbidden(
            f"{named} is ad hoc: seating it with `with` needs a gateway key made with ad_hoc allowed",
            param="with",
        )


def check_collection(request: Request, collection: str | None) -> None:
    """Refuse (403) a collection outside the key's scope, before anything is asked of a model.

    A scoped key that names no collection is told its own collections here,
    since the engine's refusal would list every collection there is.
    """
    allowed = allowed_collections(request)
    if allowed is None or collection in allowed:
        return
    names = ", ".join(f"bench/{name}" for name in sorted(allowed))
    if collection is None:
        raise BadRequest(f"name a collection as the model: this gateway key may use {names}", param="model")
    raise Forbidden(f"this gateway key may use {names} only, not bench/{collection}", param="model")
