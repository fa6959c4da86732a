"""The API routes every request goes through, served without FastAPI's router and middleware.

A panel's own work is a few milliseconds of CPU, and FastAPI's route matching
plus its five middleware layers (each wrapping every `send` of a stream) was
a sixth of it: at 16 panels in flight that alone kept the p50 over its
target. These routes take nothing FastAPI gives a handler — each reads its
own body and raises its own refusals — so the front here finds them by
method and path and calls them directly, turning a raised error into the
same reply the app's exception handlers give. Everything else (admin API,
pages, paths with parameters, lifespan) goes to the app unchanged. Checks
that must hold for every request belong in front of this, as plain ASGI.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Iterable

from fastapi import APIRouter, FastAPI
from fastapi.routing import APIRoute
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from panelgate.http.errors import respond_to_error

Handler = Callable[[Request], Awaitable[Response]]


class FastPaths:
    def __init__(self, app: FastAPI, routers: Iterable[APIRouter]) -> None:
        self.app = app
        self._handlers = dict(_direct_routes(routers))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        handler = self._handlers.get((scope.get("method", ""), scope.get("path", "")))
        if handler is None or scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        scope["app"] = self.app
        request = Request(scope, receive)
        try:
            response = await handler(request)
        except Exception as exc:
            response = await respond_to_error(request, exc)
        await response(scope, receive, send)


def _direct_routes(routers: Iterable[APIRouter]) -> Iterable[tuple[tuple[str, str], Handler]]:
    """The routes without path parameters whose handler takes just the request."""
    for router in routers:
        for route in router.routes:
            if not isinstance(route, APIRoute) or route.param_convertors:
                continue
            if list(inspect.signature(route.endpoint).parameters) != ["request"]:
                continue
            for method in route.methods or ():
                yield (method, route.path), route.endpoint
