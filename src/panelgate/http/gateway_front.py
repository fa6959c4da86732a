"""The model APIs served straight from their route table, in front of FastAPI.

A panel's own work is a few milliseconds of CPU, and FastAPI's route matching
plus its middleware layers (each wrapping every `send` of a stream) was a
sixth of it. The model APIs' handlers take nothing FastAPI gives a handler —
each reads its own body and raises its own refusals — so this front finds
them in `GatewayTable` (one dict lookup for a fixed path) and calls them,
turning a raised error into a reply through the same translator as the app's
exception handlers. A wrong method on a table path is a 405 in that API's
shape. Everything else (the admin API, `/bench/`, pages, lifespan) goes to
FastAPI unchanged (through `rest`, which adds the admin API and the pages
on their first request). Checks that must hold for every request belong in front
of this, as plain ASGI.
"""

from __future__ import annotations

from fastapi import FastAPI
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from panelgate.core.log_context import note_route
from panelgate.http.errors import respond_to_error
from panelgate.http.gateway_table import GatewayTable


class GatewayFront:
    def __init__(self, app: FastAPI, table: GatewayTable, rest: ASGIApp | None = None) -> None:
        self.app = app
        self.table = table
        self.rest = rest or app
        """Where every request the table does not hold goes: the app, or a wrapper of it."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        found = self.table.find(scope["method"], scope["path"]) if scope["type"] == "http" else None
        if found is None:
            await self.rest(scope, receive, send)
            return
        scope["app"] = self.app
        route = found.route
        scope["route"] = route  # its template names the request in /metrics, as FastAPI's routes do
        if route is not None:
            note_route(route.path)
        if route is not None and route.asgi is not None:
            await route.asgi(scope, receive, send)
            return
        scope["path_params"] = found.params
        request = Request(scope, receive)
        try:
            if route is None or route.handler is None:
                raise HTTPException(405, headers={"Allow": ", ".join(found.allowed)})
            response = await route.handler(request)
        except Exception as exc:
            response = await respond_to_error(request, exc)
        await response(scope, receive, send)
