"""The dashboard's login: the admin token exchanged for a signed cookie, failed tries throttled.

With `PANELGATE_ADMIN_TOKEN` set, everything that is not a gateway route (the admin
API, the pages) asks for the login cookie or the token as Bearer. A browser is sent
to `/login`; a cookie lasts a week, cannot be forged or edited, and dies with the
token it was made under. How often a login may be tried: test_login_throttle.py.
"""

from __future__ import annotations

import html
import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from tests.support.gateway import Gateway

TOKEN = "a-token-of-twenty-chars"
COOKIE = "panelgate_session"
WEEK_S = 7 * 24 * 3600


def _guarded(home: Path, **env: str) -> Gateway:
    return Gateway(home, env={"PANELGATE_ADMIN_TOKEN": TOKEN, **env}).start()


@pytest.fixture
def guarded(tmp_path: Path) -> Iterator[Gateway]:
    server = _guarded(tmp_path / "home")
    try:
        yield server
    finally:
        server.close()


def _login(gateway: Gateway, token: str, **headers: str) -> httpx.Response:
    return httpx.post(f"{gateway.url}/login", json={"token": token}, headers=headers)


def _cookie(response: httpx.Response) -> str:
    assert response.status_code == 204, response.text
    match = re.match(rf"{COOKIE}=([^;]+);", response.headers["set-cookie"])
    assert match, response.headers["set-cookie"]
    return match.group(1)


def _keys_with(gateway: Gateway, cookie: str) -> httpx.Response:
    return httpx.get(f"{gateway.url}/api/keys", cookies={COOKIE: cookie})


def _after_login(gateway: Gateway, asked_next: str) -> str:
    """Where the login page sends the browser once the token is accepted."""
    page = httpx.get(f"{gateway.url}/login", params={"next": asked_next})
    assert page.status_code == 200
    found = re.search(r'<form id="login"[^>]* data-next="([^"]*)"', page.text)
    assert found, page.text
    return html.unescape(found.group(1))


# ---- asking for a login ----------------------------------------------------------------------


def test_the_admin_api_without_credentials_is_401_in_json(guarded: Gateway):
    response = httpx.get(f"{guarded.url}/api/keys")
    assert response.status_code == 401
    assert "/login" in response.json()["error"]["message"]
    assert response.headers["www-authenticate"].startswith("Bearer ")
    assert httpx.get(f"{guarded.url}/health").status_code == 200, "the health check stays open"


def test_a_browser_asking_for_a_page_is_sent_to_log_in(guarded: Gateway):
    response = httpx.get(f"{guarded.url}/panels/recent", headers={"Accept": "text/html,*/*"})
    assert response.status_code == 303
    assert response.headers["location"] == "/login?next=/panels/recent"


def test_the_admin_token_as_bearer_opens_the_admin_api(guarded: Gateway):
    response = httpx.get(f"{guarded.url}/api/keys", headers={"Authorization": f"Bearer {TOKEN}"})
    assert response.status_code == 200 and response.json() == {"keys": []}
    wrong = httpx.get(f"{guarded.url}/api/keys", headers={"Authorization": f"Bearer {TOKEN}x"})
    assert wrong.status_code == 401


# ---- the cookie ------------------------------------------------------------------------------


def test_logging_in_sets_a_strict_http_only_cookie_for_a_week(guarded: Gateway):
    response = _login(guarded, TOKEN)
    _cookie(response)
    attributes = [part.strip().lower() for part in response.headers["set-cookie"].split(";")[1:]]
    assert {"httponly", "samesite=strict", f"max-age={WEEK_S}", "path=/"} <= set(attributes)
    assert "secure" not in attributes, "a Secure cookie would never come back over plain http"


def test_behind_an_https_public_url_the_cookie_is_secure(tmp_path: Path):
    server = _guarded(tmp_path / "home", PANELGATE_PUBLIC_URL="https://bench.example.com")
    try:
        response = _login(server, TOKEN)
        _cookie(response)
        assert "secure" in [part.strip().lower() for part in response.headers["set-cookie"].split(";")]
    finally:
        server.close()


def test_the_cookie_opens_the_admin_api(guarded: Gateway):
    cookie = _cookie(_login(guarded, TOKEN))
    assert _keys_with(guarded, cookie).status_code == 200
    made = httpx.post(
        f"{guarded.url}/api/keys", json={"name": "from the dashboard"}, cookies={COOKIE: cookie}
    )
    assert made.status_code == 201


@pytest.mark.parametrize(
    "edit",
    [
        lambda c: "9" + c,  # a later expiry
        lambda c: c[:-2] + ("AA" if not c.endswith("AA") else "BB"),  # another signature
        lambda c: c.rsplit(".", 1)[0],  # no signature
        lambda c: f"{int(time.time()) + WEEK_S}.forged.signature",
    ],
    ids=["expiry", "signature", "unsigned", "forged"],
)
def test_an_edited_or_forged_cookie_opens_nothing(guarded: Gateway, edit: Callable[[str], str]):
    cookie = _cookie(_login(guarded, TOKEN))
    assert _keys_with(guarded, edit(cookie)).status_code == 401


def test_a_cookie_stops_working_when_the_token_changes(guarded: Gateway):
    cookie = _cookie(_login(guarded, TOKEN))
    guarded.stop()
    changed = Gateway(guarded.home, env={**guarded.extra_env, "PANELGATE_ADMIN_TOKEN": "b" * 24}).start()
    try:
        assert _keys_with(changed, cookie).status_code == 401
        assert _keys_with(changed, _cookie(_login(changed, "b" * 24))).status_code == 200
    finally:
        changed.close()


def test_logging_out_clears_the_cookie(guarded: Gateway):
    _cookie(_login(guarded, TOKEN))
    response = httpx.post(f"{guarded.url}/logout")
    assert response.status_code == 204
    assert (
        re.match(rf"{COOKIE}=;", response.headers["set-cookie"])
        and "Max-Age=0" in response.headers["set-cookie"]
    )


# ---- refusals --------------------------------------------------------------------------------


def test_a_wrong_token_is_401_without_a_cookie(guarded: Gateway):
    response = _login(guarded, TOKEN + "x")
    assert response.status_code == 401 and "set-cookie" not in response.headers
    assert "admin token" in response.json()["error"]["message"]


def test_a_login_posted_from_another_site_is_refused(guarded: Gateway):
    response = _login(guarded, TOKEN, Origin="https://evil.example")
    assert response.status_code == 403 and "set-cookie" not in response.headers
    form = httpx.post(f"{guarded.url}/login", data={"token": TOKEN})
    assert form.status_code == 415 and "set-cookie" not in form.headers


# ---- where a login leads ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "elsewhere",
    ["https://evil.example/", "//evil.example", "/\\evil.example", "/\t/evil.example", "javascript:alert(1)"],
)
def test_next_pointing_to_another_site_is_ignored(guarded: Gateway, elsewhere: str):
    assert _after_login(guarded, elsewhere) == "/"


def test_next_on_this_gateway_is_kept(guarded: Gateway):
    assert _after_login(guarded, "/panels/recent?collection=core") == "/panels/recent?collection=core"
