"""Counting every HTTP request for `/metrics`, by route template and status, as plain ASGI.

It sits inside `PathAliases` (so it sees the route table's path and the
scope the router writes into) and outside the access guard (so refusals are
counted too). The label is the route's template, never the path asked
(whose ids and model names would make a series each): `GatewayFront` puts
its table's route in `scope["route"]`; FastAPI's routes are read with
`route_template` (the prefix of an included router put back). A request no
route took is `other`.

The reply's status is also noted in the request's state (`STATUS`), where
the access log outside reads it rather than wrapping `send` a second time.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from panelgate.http.gateway_table import GatewayRoute
from panelgate.http.route_template import route_template
from panelgate.observe import OTHER_ROUTE, Meter

STATUS = "reply_status"
"""The key of the request's state that holds the reply's status once it began."""


class RequestMeter:
    def __init__(self, app: ASGIApp, meter: Meter) -> None:
        self.app = app
        self._meter = meter

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        state = scope.setdefault("state", {})

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                state[STATUS] = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            # 500: what the server answers when the app raised before replying
            self._meter.request(route_label(scope), scope["method"], state.get(STATUS, 500))


def route_label(scope: Scope) -> str:
    route = scope.get("route")
    if isinstance(route, GatewayRoute):
        return route.path
    return route_template(scope) or OTHER_ROUTE
