"""Every refusal in the shape its caller's API expects, decided in one translator (`respond_to_error`).

Handlers raise; this module decides the body. A path owned by one of the
gateway's APIs (`app.state.gateway`, the `GatewayTable`) gets that API's
error body; other admin routes (`/api/...`) get `{"error": {"message",
"field"}}`; anything else (the bench routes, unknown paths) the OpenAI
shape, the one most clients read. A stack trace or a secret never reaches a
caller: unexpected failures are logged here and answered with a plain
sentence.
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response

from panelgate.core.errors import BadRequest, GatewayError, MethodNotAllowed, NotFound, error_for_status
from panelgate.formats.openai_chat.panel import OpenAIChat
from panelgate.http.gateway_table import ErrorShape, GatewayTable
from panelgate.http.responses import json_response
from panelgate.store import errors as store_errors

log = logging.getLogger(__name__)
_STORE_STATUS: dict[type[Exception], int] = {
    store_errors.Invalid: 400,
    store_errors.NotFound: 404,
    store_errors.Conflict: 409,
}
_OPENAI = OpenAIChat()


def format_for(request: Request) -> ErrorShape | None:
    """The API format whose error shape this request gets; None for the admin API."""
    return format_for_path(request.url.path, request.app.state.gateway)


def format_for_path(path: str, table: GatewayTable) -> ErrorShape | None:
    api = table.api_for(path)
    if api is not None:
        return api.errors
    return None if path.startswith("/api/") else _OPENAI


def error_body(fmt: ErrorShape | None, error: GatewayError) -> dict[str, Any]:
    """`fmt`'s error body, or the admin API's `{"error": {"message", "field"}}` for None."""
    if fmt is None:
        return {"error": {"message": error.message, "field": error.param}}
    return fmt.error_body(error)


def gateway_routes(request: Request) -> str:
    """`METHOD /path` of every gateway route (the model APIs and `/bench/`), for a 404 that says where
    to go instead."""
    bench = [
        f"{'/'.join(sorted(route.methods or ()))} {route.path}"
        for route in request.app.routes
        if isinstance(route, APIRoute) and route.path.startswith("/bench/")
    ]
    return ", ".join([*request.app.state.gateway.listing(), *bench])


def error_response(request: Request, error: GatewayError, status: int | None = None) -> Response:
    return json_response(error_body(format_for(request), error), status or error.status)


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


def _client_gone(request: Request) -> Response:
    """The caller hung up while its body was read: nobody reads this reply, and a traceback for
    each hang-up would let anyone flood the log (499, as nginx logs it)."""
    log.debug("the client hung up while %s %s was read", request.method, request.url.path)
    return Response(status_code=499)


async def respond_to_error(request: Request, exc: Exception) -> Response:
    """The reply for `exc`: the one translator, for the app's exception handlers and the gateway front."""
    if isinstance(exc, GatewayError):
        return error_response(request, exc)
    if isinstance(exc, tuple(_STORE_STATUS)):
        return await _store_error(request, exc)
    if isinstance(exc, HTTPException):
        return await _http_error(request, exc)
    if isinstance(exc, RequestValidationError):
        return await _validation_error(request, exc)
    if isinstance(exc, ClientDisconnect):
        return _client_gone(request)
    return await _unexpected(request, exc)


def install(app: FastAPI) -> None:
    kinds: list[type[Exception]] = [GatewayError, *_STORE_STATUS, HTTPException, RequestValidationError]
    kinds.append(ClientDisconnect)  # a hang-up on an admin route is quiet too
    for kind in [*kinds, Exception]:
        app.add_exception_handler(kind, respond_to_error)
