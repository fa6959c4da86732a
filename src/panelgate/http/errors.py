"""Every refusal in the shape its caller's API expects.

Handlers raise; this module decides the body. A path owned by an API surface
(`app.state.surfaces`: each surface module says which paths it `owns` and its
`FORMAT`) gets that API's error body; other admin routes (`/api/...`) get
`{"error": {"message", "field"}}`; anything else (the bench routes, unknown
paths) the OpenAI shape, the one most clients read. A stack trace or a
secret never reaches a caller: unexpected failures are logged here and
answered with a plain sentence.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any, Protocol

from fastapi import APIRouter, FastAPI
from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

from panelgate.core.errors import BadRequest, GatewayError, MethodNotAllowed, NotFound, error_for_status
from panelgate.formats.openai_chat import OpenAIChat
from panelgate.http.responses import json_response
from panelgate.store import errors as store_errors

log = logging.getLogger(__name__)
_STORE_STATUS: dict[type[Exception], int] = {
    store_errors.Invalid: 400,
    store_errors.NotFound: 404,
    store_errors.Conflict: 409,
}
_OPENAI = OpenAIChat()


class ErrorShape(Protocol):
    """How an API writes a refusal (every inbound format is one)."""

    def error_body(self, error: GatewayError) -> dict[str, Any]: ...


class Surface(Protocol):
    """An API surface module: its router, its error shape, and the paths it owns."""

    router: APIRouter
    FORMAT: ErrorShape

    def owns(self, path: str) -> bool: ...


def format_for(request: Request) -> ErrorShape | None:
    """The API format whose error shape this request gets; None for the admin API."""
    return format_for_path(request.url.path, request.app.state.surfaces)


def format_for_path(path: str, surfaces: Iterable[Surface]) -> ErrorShape | None:
    for surface in surfaces:
        if surface.owns(path):
            found: ErrorShape = surface.FORMAT
            return found
    return None if path.startswith("/api/") else _OPENAI


def error_body(fmt: ErrorShape | None, error: GatewayError) -> dict[str, Any]:
    """`fmt`'s error body, or the admin API's `{"error": {"message", "field"}}` for None."""
    if fmt is None:
        return {"error": {"message": error.message, "field": error.param}}
    return fmt.error_body(error)


def gateway_routes(request: Request) -> str:
    """`METHOD /path` of every gateway route, for a 404 that says where to go instead."""
    routes = [route for router in request.app.state.gateway_routers for route in router.routes]
    return ", ".join(
        f"{'/'.join(sorted(r.methods or ()))} {r.path}" for r in routes if isinstance(r, APIRoute)
    )


def error_response(request: Request, error: GatewayError, status: int | None = None) -> Response:
    return json_response(error_body(format_for(request), error), status or error.status)


async def _gateway_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, GatewayError)
    return error_response(request, exc)


async def _store_error(request: Request, exc: Exception) -> Response:
    status = next(s for kind, s in _STORE_STATUS.items() if isinstance(exc, kind))
    error = error_for_status(status, str(exc))
    error.param = getattr(exc, "field", None)
    return error_response(request, error, status)


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    if exc.status_code == 404:
        where = "" if format_for(request) is None else f"; the gateway answers {gateway_routes(request)}"
        return error_response(request, NotFound(f"no route {request.method} {request.url.path}{where}"))
    if exc.status_code == 405:
        allowed = (exc.headers or {}).get("Allow", "")
        takes = f"; it takes {allowed}" if allowed else ""
        refusal = MethodNotAllowed(f"{request.method} is not allowed on {request.url.path}{takes}")
        return json_response(error_body(format_for(request), refusal), 405, exc.headers)
    return error_response(request, error_for_status(exc.status_code, str(exc.detail)), exc.status_code)


async def _validation_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    first = exc.errors()[0] if exc.errors() else {}
    field = ".".join(str(p) for p in first.get("loc", ())[1:]) or None
    return error_response(
        request, BadRequest(f"{field or 'request'}: {first.get('msg', 'invalid')}", param=field)
    )


async def _unexpected(request: Request, exc: Exception) -> Response:
    log.exception("unexpected failure on %s %s", request.method, request.url.path)
    return error_response(request, GatewayError("the gateway failed on this request; see its log"), 500)


async def respond_to_error(request: Request, exc: Exception) -> Response:
    """The reply the app's exception handlers give for `exc`, for routes served in front of the app."""
    if isinstance(exc, GatewayError):
        return await _gateway_error(request, exc)
    if isinstance(exc, tuple(_STORE_STATUS)):
        return await _store_error(request, exc)
    if isinstance(exc, HTTPException):
        return await _http_error(request, exc)
    return await _unexpected(request, exc)


def install(app: FastAPI) -> None:
    app.add_exception_handler(GatewayError, _gateway_error)
    for kind in _STORE_STATUS:
        app.add_exception_handler(kind, _store_error)
    app.add_exception_handler(HTTPException, _http_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(Exception, _unexpected)
