"""One line per request: method, path (never the query string), status, how long, and the request's ids.

Written as plain ASGI around the access guard, so refusals are logged too.
Each request gets a fresh `LogContext` (`core/log_context.py`) that the
engine fills with the panel, call and conversation ids it learns and the
gateway front with the route; the formatters add them to every line logged
while the request is served, this one included. The caller ("key") is the
gateway key's name, `admin` for the admin token or login cookie, or `-`
(loopback without a credential). No header, query string or body is ever
written: keys travel in those, and Gemini's in the query.

The status is the one `RequestMeter` (inside) notes in the request's state,
so a reply's messages pass through one wrapper, not two; a request that
ended before any reply began has none (`-`).
"""

from __future__ import annotations

import logging
import time

from starlette.types import ASGIApp, Receive, Scope, Send

from panelgate.core.log_context import LogContext, current
from panelgate.http.request_meter import STATUS
from panelgate.http.route_template import route_template

log = logging.getLogger("panelgate.access")


class AccessLog:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not log.isEnabledFor(logging.INFO):
            await self.app(scope, receive, send)
            return
        began = time.monotonic()
        state = scope.setdefault("state", {})  # shared with every copy of the scope made inside
        context = LogContext()
        token = current.set(context)
        try:
            await self.app(scope, receive, send)
        finally:
            took_ms = (time.monotonic() - began) * 1000
            status = state.get(STATUS, 0)
            context.key = state.get("caller", "-")
            context.route = context.route or route_template(scope)
            log.info(
                "%s %s %s %.0fms",
                scope["method"],
                scope["path"],
                status or "-",
                took_ms,
                extra={"status": status or None, "ms": round(took_ms, 1)},
            )
            current.reset(token)
