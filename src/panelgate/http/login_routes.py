"""`/login` and `/logout`: the admin token exchanged for a signed cookie, failed tries throttled.

The page is plain HTML with a few lines of script that post the token as
JSON (writes here must be same-origin JSON, like every write). Where no
admin token is set the gateway is loopback-only and has no login; the page
says so instead of asking.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from urllib.parse import urlsplit

from fastapi import APIRouter, Request
from starlette.responses import HTMLResponse, Response

from panelgate.core.errors import BadRequest, NotFound, RateLimited, Unauthorized
from panelgate.http.access import session
from panelgate.http.access.policy import AccessPolicy
from panelgate.http.access.throttle import LoginThrottle
from panelgate.http.body import read_json_object
from panelgate.http.errors import error_body, format_for
from panelgate.http.responses import json_response

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
    if _desk(request).policy.admin_token is None:
        return HTMLResponse(_PAGE.format(form="<p>This gateway serves loopback only and has no login.</p>"))
    target = json.dumps(_local(request.query_params.get("next"))).replace("<", "\\u003c")
    return HTMLResponse(_PAGE.format(form=_FORM.format(next=target)))


@router.post("/login")
async def login(request: Request) -> Response:
    desk = _desk(request)
    token = desk.policy.admin_token
    if token is None:
        raise NotFound("this gateway has no login: PANELGATE_ADMIN_TOKEN is not set (loopback only)")
    address = request.client.host if request.client else ""
    wait = desk.throttle.wait_s(address)
    if wait > 0:
        seconds = math.ceil(wait)
        refused = RateLimited(f"too many failed logins from {address}; try again in {seconds} s")
        return json_response(
            error_body(format_for(request), refused), refused.status, {"Retry-After": str(seconds)}
        )
    offered = (await read_json_object(request, 10_000)).get("token")
    if not isinstance(offered, str) or not offered:
        raise BadRequest('send the admin token as `{"token": "..."}`', param="token")
    if not session.token_matches(offered, token):
        desk.throttle.failed(address)
        raise Unauthorized("that is not the admin token")
    desk.throttle.succeeded(address)
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


_FORM = """<form id="login">
<label>Admin token <input type="password" name="token" autocomplete="current-password" autofocus></label>
<button>Log in</button> <output></output>
</form>
<script>
document.getElementById("login").addEventListener("submit", async (event) => {{
  event.preventDefault();
  const out = event.target.querySelector("output");
  const reply = await fetch("/login", {{method: "POST", headers: {{"Content-Type": "application/json"}},
    body: JSON.stringify({{token: event.target.token.value}})}});
  if (reply.ok) {{ location.assign({next}); return; }}
  const body = await reply.json().catch(() => ({{}}));
  out.textContent = (body.error && body.error.message) || ("HTTP " + reply.status);
}});
</script>"""

_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>panelgate: log in</title></head>
<body><h1>panelgate</h1>{form}</body></html>"""
