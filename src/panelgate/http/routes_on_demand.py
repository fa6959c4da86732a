"""The admin API and the dashboard's pages, added to the app by the first request for them.

Their modules, their pydantic models and FastAPI's handlers for each of their
routes are about 9 MiB of an idle gateway's 100, and a gateway that only
answers model calls never needs them. So they are imported (in a thread, so
the event loop keeps answering) and added to the app when the first request
comes that is not a model call, `/bench/`, `/metrics` or an open path
(`/health`, `/login`, static files: `http/access/paths.py`): the first
page or admin call after a start waits for that once, about a third of a
second. Under `serve --workers N` each worker loads them on its own first
such request: loaded in the supervisor before the fork they would be shared,
but every worker would hold them (about 9 MiB more across a two-worker
server at idle), where most servers with workers answer model calls.
"""

from __future__ import annotations

import asyncio

from fastapi import APIRouter, FastAPI
from starlette.types import Receive, Scope, Send

from panelgate.http.access.paths import GATEWAY_PREFIXES, METRICS_PATH, OPEN_PATHS, OPEN_PREFIXES

_PREFIXES_WITHOUT = (*GATEWAY_PREFIXES, *OPEN_PREFIXES)


def needs_them(path: str) -> bool:
    """Whether a request for `path` (not a model call) may be for the admin API or a page."""
    return not (path in OPEN_PATHS or path == METRICS_PATH or path.startswith(_PREFIXES_WITHOUT))


def _routers() -> tuple[APIRouter, ...]:
    from panelgate.http import admin
    from panelgate.web import pages

    return (admin.router, *pages.ROUTERS)


class RoutesOnDemand:
    """In front of the FastAPI app, for every request the gateway front does not answer itself."""

    def __init__(self, app: FastAPI) -> None:
        self._app = app
        self._added = False
        self._adding: asyncio.Task[None] | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not self._added and scope["type"] == "http" and needs_them(scope["path"]):
            await self._add()
        await self._app(scope, receive, send)

    async def _add(self) -> None:
        if self._adding is None:
            self._adding = asyncio.create_task(self._load(), name="panelgate-admin-routes")
        # Shielded: a client that hangs up while they load must not cancel the load for the others.
        await asyncio.shield(self._adding)

    async def _load(self) -> None:
        try:
            routers = await asyncio.to_thread(_routers)
        except BaseException:
            self._adding = None  # the next request tries again
            raise
        self._include(routers)

    def _include(self, routers: tuple[APIRouter, ...]) -> None:
        for router in routers:
            self._app.include_router(router)
        self._app.openapi_schema = None  # the document is written again, with their routes
        self._added = True
