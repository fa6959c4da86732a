"""One line per request: method, path (never the query string), status, who, and how long.

Written as plain ASGI around the access guard, so refusals are logged too.
"Who" is the gateway key's name, `admin` for the admin token or login
cookie, or `-` (loopback without a credential). No header, query string or
body is ever written: keys travel in those, and Gemini's in the query.
"""

from __future__ import annotations

import logging
import time

from starlette.types import ASGIApp, Message, Receive, Scope, Send

log = logging.getLogger("panelgate.access")


class AccessLog:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not log.isEnabledFor(logging.INFO):
            await self.app(scope, receive, send)
            return
        began = time.monotonic()
        status = 0

        async def sending(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            who = scope.get("state", {}).get("caller", "-")
            took_ms = (time.monotonic() - began) * 1000
            log.info("%s %s %s %s %.0fms", scope["method"], scope["path"], status or "-", who, took_ms)
