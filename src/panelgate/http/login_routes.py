"""`/login` and `/logout`: the admin token exchanged for a signed cookie, tries throttled.

The page (templates/login.html) wears the dashboard's theme but not its
frame: it is open to anyone, so it reads neither the database nor the
sidebar, and its script is a file like every page's (the CSP allows no
inline script). It posts the token as JSON (writes here must be same-origin
JSON, like every write). Where no admin token is set the gateway is
loopback-only and has no login; the page says so instead of asking.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urlsplit

from fastapi import APIRouter, Request
from starlette.responses import Response

from panelgate.core.errors import BadRequest, NotFound, RateLimited, Unauthorized
from panelgate.http.access import session
from panelgate.http.access.policy import AccessPolicy
from panelgate.http.access.throttle import LoginThrottle
from panelgate.http.body import read_json_object
from panelgate.http.errors import error_body, format_for
from panelgate.http.responses import json_response
from panelgate.http.services import services
from panelgate.web.frame import PAGE_HEADERS, templates, theme_of

router = APIRouter()
_UNSAFE_IN_NEXT = re.compile(r"[\\\s\x00-\x1f\x7f]")


@dataclass(frozen=True)
class LoginDesk:
    """What `/login` needs, kept on the app's state by `create_app`."""

    policy: AccessPolicy
    throttle: LoginThrottle


def _desk(request: Request) -> LoginDesk:
    desk: LoginDesk = request.app.state.login
    return desk


@router.get("/login")
async def login_page(request: Request) -> Response:
    context = {
        "theme": theme_of(request),
        "has_login": _desk(request).policy.admin_token is not None,
        "next": _local(request.query_params.get("next")),
    }
    return templates().TemplateResponse(request, "login.html", context, headers=PAGE_HEADERS)


@router.post("/login")
async def login(request: Request) -> Response:
    desk = _desk(request)
    token = desk.policy.admin_token
    if token is None:
        raise NotFound("this gateway has no login: PANELGATE_ADMIN_TOKEN is not set (loopback only)")
    offered = (await read_json_object(request, 10_000)).get("token")
    if not isinstance(offered, str) or not offered:
        raise BadRequest('send the admin token as `{"token": "..."}`', param="token")
    address = request.client.host if request.client else ""  # a trusted proxy's client: see access/proxies
    wait = await desk.throttle.wait_s(services(request).db.key_minutes, address)
    if wait > 0:
        refused = RateLimited(f"too many login attempts; try again in {wait} s")
        return json_response(
            error_body(format_for(request), refused), refused.status, {"Retry-After": str(wait)}
        )
    if not session.token_matches(offered, token):
        raise Unauthorized("that is not the admin token")
    cookie = session.set_cookie_header(session.new_cookie(token), secure=desk.policy.secure_cookie)
    return Response(status_code=204, headers={"Set-Cookie": cookie})


@router.post("/logout")
async def logout(request: Request) -> Response:
    cookie = session.set_cookie_header("", secure=_desk(request).policy.secure_cookie, max_age=0)
    return Response(status_code=204, headers={"Set-Cookie": cookie})


def _local(target: str | None) -> str:
    """Where to go after logging in: a path on this gateway only (never another site).

    Browsers read `/\\host` as `//host` and drop tabs and newlines from a URL
    (`/<tab>/host` too), so a backslash, a space or a control character anywhere
    sends the login to `/` as well.
    """
    if not target or _UNSAFE_IN_NEXT.search(target) or not target.startswith("/"):
        return "/"
    if target.startswith("//") or urlsplit(target).netloc:
        return "/"
    return target
