"""The access layer as plain ASGI, in front of the app and its fast paths (see the package docstring)."""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import quote

from starlette.datastructures import State
from starlette.responses import RedirectResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from panelgate.core.errors import (
    BadRequest,
    Forbidden,
    GatewayError,
    TooLarge,
    Unauthorized,
    UnsupportedMedia,
)
from panelgate.http.access import cors, session
from panelgate.http.access.keys import admit
from panelgate.http.access.paths import PathKind, kind_of
from panelgate.http.access.policy import AccessPolicy
from panelgate.http.access.refusal import Refusal
from panelgate.http.access.request_view import RequestView
from panelgate.http.body import NOT_JSON, UNTYPED_MEDIA
from panelgate.http.errors import error_body, format_for_path
from panelgate.http.gateway_table import GatewayTable
from panelgate.http.responses import json_response

WRITES = frozenset({"POST", "PUT", "PATCH", "DELETE"})


class AccessGuard:
    def __init__(self, app: ASGIApp, policy: AccessPolicy, state: State) -> None:
        """`state` is the app's: its `gateway` table, and the `services` the lifespan puts there."""
        self.app = app
        self.policy = policy
        self._state = state

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        view = RequestView.of(scope)
        kind = kind_of(view.path, self._state.gateway, metrics_public=self.policy.metrics_public)
        origin = cors.allowed_origin(view, self.policy) if kind is PathKind.GATEWAY else None
        try:
            if cors.is_preflight(view):
                await self._preflight(view, origin, scope, receive, send)
                return
            self._check_request(view, origin)
            response = await self._check_credentials(view, kind, scope)
        except Refusal as refused:
            await self._refuse(view, refused.error, refused.headers, origin, scope, receive, send)
            return
        except GatewayError as error:  # e.g. the shared store that counts a key's rpm is unreachable
            await self._refuse(view, error, {}, origin, scope, receive, send)
            return
        if response is not None:
            await response(scope, receive, send)
            return
        await self.app(scope, receive, _with_cors(send, origin) if origin else send)

    def _check_request(self, view: RequestView, origin: str | None) -> None:
        """Host, same-origin JSON writes and the declared body size, before any credential is read."""
        host = view.headers.get("host", "")
        if not self.policy.host_allowed(host):
            raise Refusal(
                Forbidden(
                    f"this gateway does not answer to the host name `{host}`: "
                    "add it to PANELGATE_ALLOWED_HOSTS (or set PANELGATE_PUBLIC_URL)"
                )
            )
        if view.method in WRITES:
            sent_origin = view.headers.get("origin")
            cross_site = view.headers.get("sec-fetch-site", "").lower() == "cross-site"
            foreign = sent_origin is not None and not self.policy.same_origin(sent_origin, host)
            if (cross_site or foreign) and origin is None:
                raise Refusal(
                    Forbidden(
                        f"a page on another site ({sent_origin or 'cross-site'}) may not write here; "
                        "gateway routes accept origins listed in PANELGATE_ALLOWED_ORIGINS"
                    )
                )
            if view.has_body() and not view.is_json() and not _untyped_json_taken(view, self._state.gateway):
                raise Refusal(UnsupportedMedia(NOT_JSON))
        declared = view.headers.get("content-length")
        if declared is not None:
            if not (declared.strip().isascii() and declared.strip().isdigit()):
                raise Refusal(BadRequest("the Content-Length header is not a number of bytes"))
            if int(declared) > self.policy.max_body_bytes:
                raise Refusal(
                    TooLarge(
                        f"the body is larger than {self.policy.max_body_bytes / 1_000_000:g} MB; "
                        "send images as http(s) URLs instead of inline data"
                    )
                )

    async def _check_credentials(self, view: RequestView, kind: PathKind, scope: Scope) -> Response | None:
        """Let the request through (None), answer it here (a redirect to log in), or raise a refusal."""
        if kind is PathKind.GATEWAY:
            found = self._state.services
            admitted = await admit(view, found.db, found.key_spend, required=self.policy.keys_required)
            if admitted.key is not None:
                state = scope.setdefault("state", {})
                state["gateway_key"] = admitted.key
                state["caller"] = admitted.key.name
            return None
        token = self.policy.admin_token
        if kind is PathKind.OPEN or token is None:
            return None
        cookie = view.cookie(session.COOKIE)
        bearer = view.bearer()
        if (cookie is not None and session.cookie_valid(cookie, token)) or (
            bearer is not None and session.token_matches(bearer, token)
        ):
            scope.setdefault("state", {})["caller"] = "admin"
            return None
        if view.wants_html():
            return RedirectResponse(f"/login?next={quote(view.path)}", status_code=303)
        raise Refusal(
            Unauthorized("log in at /login, or send the admin token as `Authorization: Bearer <token>`"),
            {"WWW-Authenticate": 'Bearer realm="panelgate admin"'},
        )

    async def _preflight(
        self, view: RequestView, origin: str | None, scope: Scope, receive: Receive, send: Send
    ) -> None:
        self._check_request(view, origin)
        headers = cors.preflight_headers(view, origin) if origin else None
        if headers is None:
            raise Refusal(
                Forbidden(
                    "this origin may not call the gateway from a browser: "
                    "list it in PANELGATE_ALLOWED_ORIGINS"
                )
            )
        await Response(status_code=204, headers=headers)(scope, receive, send)

    async def _refuse(
        self,
        view: RequestView,
        error: GatewayError,
        headers: Mapping[str, str],
        origin: str | None,
        scope: Scope,
        receive: Receive,
        send: Send,
    ) -> None:
        body = error_body(format_for_path(view.path, self._state.gateway), error)
        response = json_response(body, error.status, headers)
        await response(scope, receive, _with_cors(send, origin) if origin else send)


def _with_cors(send: Send, origin: str) -> Send:
    extra = cors.reply_headers(origin)

    async def sending(message: Message) -> None:
        if message["type"] == "http.response.start":
            message = {**message, "headers": [*message.get("headers", ()), *extra]}
        await send(message)

    return sending


def _untyped_json_taken(view: RequestView, table: GatewayTable) -> bool:
    """An Ollama write sent without a JSON type (no type, or curl's form default) by a program, not a
    page: its route reads the body as JSON and refuses it (415) when it is not. A browser sends such a
    form post across sites without asking first (no preflight), and always with an `Origin`, so one
    with an `Origin` must say JSON like every other write."""
    return (
        table.takes_untyped_json(view.path) and view.media() in UNTYPED_MEDIA and "origin" not in view.headers
    )
