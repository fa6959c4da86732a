"""`/connect/callback`: where a provider sends the browser back after a sign-in.

Outside `/api/` and open without the admin token (the access layer's open
paths): the browser arrives from the provider's site and may carry no
login cookie. What stands in for the token is the sign-in itself: only a
pending, unexpired sign-in's `state` (or, for OpenRouter's key flow, which
returns no state, its id in the path) is accepted, and only once. The host
check and every other check of the access layer still apply.

The answer is a small page in the dashboard's look (its stylesheets; no
script, no frame, nothing read but the sign-in): "Connected: <endpoint>",
or "Not connected: <why>" with 400. The query (the code) is never logged.
"""

from __future__ import annotations

from html import escape

from fastapi import APIRouter, Request
from starlette.responses import HTMLResponse, Response

from panelgate.connect import CALLBACK_PATH, SigninRefused
from panelgate.http.services import services
from panelgate.web.frame import PAGE_HEADERS, theme_of

router = APIRouter(include_in_schema=False)


@router.get(CALLBACK_PATH)
async def oauth_callback(request: Request) -> Response:
    return await _finish(request, None)


@router.get(CALLBACK_PATH + "/{signin}")
async def key_callback(request: Request, signin: str) -> Response:
    return await _finish(request, signin)


async def _finish(request: Request, signin_id: str | None) -> Response:
    query = request.query_params
    try:
        signin = await services(request).connect.callback(
            state=query.get("state"), code=query.get("code"), error=query.get("error"), signin_id=signin_id
        )
    except SigninRefused as refused:
        return _page(request, f"Not connected: {refused.message}", 400)
    if signin.status == "connected":
        return _page(request, f"Connected: {signin.endpoint}", 200)
    return _page(request, f"Not connected: {signin.error or 'the sign-in did not finish'}", 400)


def _page(request: Request, said: str, status: int) -> Response:
    theme = escape(theme_of(request))
    body = f"""<!doctype html>
<html lang="en" data-theme-choice="{theme}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(said.split(":")[0])} · panelgate</title>
<link rel="icon" href="/static/icon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/static/themes.css">
<link rel="stylesheet" href="/static/app.css">
<link rel="stylesheet" href="/static/login.css">
</head>
<body>
<main id="main" class="login">
  <div class="card">
    <p class="brand"><img src="/static/icon.svg" alt="" width="28" height="28"> panelgate</p>
    <h1 id="outcome">{escape(said)}</h1>
    <p class="muted">You can close this tab and go back to the dashboard.</p>
  </div>
</main>
</body>
</html>
"""
    return HTMLResponse(body, status_code=status, headers=PAGE_HEADERS)
