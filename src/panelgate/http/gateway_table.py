"""The gateway's model APIs as one table: the router serves it, the access layer and OpenAPI read it.

Each inbound API (one `*_routes` module) declares an `Api`: the routes it
serves, the paths whose refusals take its error shape, and that shape. The
table answers the questions everyone else asks of those paths — which route
serves this request (or which methods would have), which API's shape does a
refusal here take, does this path take Ollama's untyped JSON — so a path is
written once, where its handler is.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import compile_path
from starlette.types import ASGIApp

from panelgate.core.errors import GatewayError

Handler = Callable[[Request], Awaitable[Response]]
"""A route's handler: the request in (path parameters in `request.path_params`), a reply out."""


class ErrorShape(Protocol):
    """How an API writes a refusal (every inbound format is one)."""

    def error_body(self, error: GatewayError) -> dict[str, Any]: ...


@dataclass(frozen=True)
class GatewayRoute:
    method: str
    path: str
    """In Starlette's syntax: `{name}` for a parameter, `{name:path}` for one that takes slashes."""
    handler: Handler | None
    """None for a raw ASGI endpoint (`asgi`), which reads the request itself."""
    summary: str
    asgi: ASGIApp | None = None
    untyped: bool = False
    """Reads a JSON body sent without a JSON type (Ollama's clients do), when no page sent it."""


@dataclass(frozen=True)
class Api:
    """One inbound API: its routes, and the paths on which a refusal takes its error shape."""

    name: str
    errors: ErrorShape
    routes: tuple[GatewayRoute, ...]
    prefixes: tuple[str, ...] = ()
    """The API owns its routes' paths and every path under these: a refusal there, even before any
    route was found (a typo in the path), reaches its clients in the shape they read."""


@dataclass(frozen=True)
class Found:
    """What the table holds for a request's method and path."""

    route: GatewayRoute | None
    params: dict[str, Any] = field(default_factory=dict)
    allowed: tuple[str, ...] = ()
    """The methods the path takes, when the route is None because the method is wrong."""


class GatewayTable:
    def __init__(self, apis: Sequence[Api]) -> None:
        self.apis = tuple(apis)
        self._exact: dict[str, dict[str, GatewayRoute]] = {}
        self._patterned: list[tuple[Any, dict[str, Any], GatewayRoute]] = []
        self._owner_of_path = {r.path: api for api in self.apis for r in api.routes if "{" not in r.path}
        self._owner_by_prefix = [(prefix, api) for api in self.apis for prefix in api.prefixes]
        for route in self.routes():
            if "{" not in route.path:
                self._exact.setdefault(route.path, {})[route.method] = route
            else:
                regex, _, convertors = compile_path(route.path)
                self._patterned.append((regex, convertors, route))

    def routes(self) -> Iterator[GatewayRoute]:
        for api in self.apis:
            yield from api.routes

    def find(self, method: str, path: str) -> Found | None:
        """The route for `method` on `path`; a route-less `Found` naming the right methods when only
        the method is wrong; None when no route has this path. Exact paths cost one dict lookup."""
        by_method = self._exact.get(path)
        if by_method is not None:
            route = by_method.get(method)
            return Found(route) if route is not None else Found(None, allowed=tuple(sorted(by_method)))
        allowed: list[str] = []
        for regex, convertors, route in self._patterned:
            matched = regex.match(path)
            if matched is None:
                continue
            if route.method == method:
                params = {
                    name: convertors[name].convert(value) for name, value in matched.groupdict().items()
                }
                return Found(route, params)
            allowed.append(route.method)
        return Found(None, allowed=tuple(sorted(set(allowed)))) if allowed else None

    def api_for(self, path: str) -> Api | None:
        """The API that owns `path` (asked of every request by the access layer: a lookup, not a scan)."""
        owner = self._owner_of_path.get(path)
        if owner is not None:
            return owner
        return next((api for prefix, api in self._owner_by_prefix if path.startswith(prefix)), None)

    def takes_untyped_json(self, path: str) -> bool:
        by_method = self._exact.get(path, {})
        return any(route.untyped for route in by_method.values())

    def listing(self) -> list[str]:
        """`METHOD /path` of every route, for a 404 that says where to go instead."""
        return [f"{route.method} {route.path}" for route in self.routes()]
