"""The gateway key a request presents, and whether it may go ahead.

A key is read from `Authorization: Bearer`, `x-api-key` (Anthropic's SDK),
`x-goog-api-key` (Gemini's), or `?key=` on the Gemini routes only — never
from a query string elsewhere, where proxies and logs keep URLs. Two places
carrying different values are refused (400, naming the places, never the
values); the same value twice is one credential. Where keys
are not required (loopback, `PANELGATE_REQUIRE_KEYS` unset) a value that is
not shaped like a gateway key is a client's placeholder and ignored, while
a `pgk_` key is still checked, so a scoped key keeps its scope everywhere.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from datetime import UTC, datetime

from panelgate.core.errors import BadRequest, RateLimited, Unauthorized
from panelgate.http.access.budgets import refusal_for
from panelgate.http.access.key_spend import KeySpendWatch
from panelgate.http.access.refusal import Refusal
from panelgate.http.access.request_view import RequestView
from panelgate.store import Database, GatewayKeyRecord
from panelgate.store.gateway_keys import looks_like_key

HOW_TO_SEND = "send a gateway key (pgk_...) as `Authorization: Bearer <key>`, `x-api-key` or `x-goog-api-key`"


@dataclass(frozen=True)
class Admitted:
    key: GatewayKeyRecord | None
    """None: no key needed here and none presented."""


def presented_key(view: RequestView) -> str | None:
    """The one credential the request carries; raises `Refusal` (400) when two places disagree.

    Taking the first would let a client's placeholder in one header hide a scoped key in another
    (the key's scope lost on loopback), or refuse a valid key where keys are required.
    """
    sent = {
        where: value
        for where, value in (
            ("Authorization", view.bearer()),
            ("x-api-key", view.headers.get("x-api-key")),
            ("x-goog-api-key", view.headers.get("x-goog-api-key")),
            ("?key=", view.query_value("key") if view.path.startswith("/v1beta/") else None),
        )
        if value
    }
    if len(set(sent.values())) > 1:
        raise Refusal(
            BadRequest(
                f"{' and '.join(sent)} carry different credentials: send one gateway key, in one place"
            )
        )
    return next(iter(sent.values()), None)


async def admit(view: RequestView, db: Database, spend: KeySpendWatch, *, required: bool) -> Admitted:
    """The key this request may go ahead with; raises `Refusal` (401 or 429) otherwise.

    A key over a budget is refused before its request counts against its rpm."""
    text = presented_key(view)
    if text is None or not looks_like_key(text):
        if not required:
            return Admitted(None)
        reason = "no gateway key was sent" if text is None else "the key sent is not a gateway key"
        raise _unauthorized(
            f"{reason}: {HOW_TO_SEND}", "invalid_request" if text is None else "invalid_token"
        )
    key = await db.keys.find(text)
    if key is None:
        raise _unauthorized("this gateway key is not known here (it may be from another gateway)")
    if key.revoked:
        raise _unauthorized("this gateway key was revoked; ask for a new one")
    if key.budgets.any:
        over = refusal_for(key.budgets, await spend.spent(key), datetime.now(UTC))
        if over is not None:
            raise over
    if key.rpm is not None:
        now = time.time()
        minute = int(now // 60)
        if await db.key_minutes.count(key.id, minute) > key.rpm:
            wait = max(1, math.ceil((minute + 1) * 60 - now))
            raise Refusal(
                RateLimited(f"this gateway key may make {key.rpm} requests a minute; try again in {wait} s"),
                {"Retry-After": str(wait)},
            )
    await db.keys.touch(key.id, datetime.now(UTC))
    return Admitted(key)


def _unauthorized(message: str, error: str = "invalid_token") -> Refusal:
    return Refusal(Unauthorized(message), {"WWW-Authenticate": f'Bearer realm="panelgate", error="{error}"'})
