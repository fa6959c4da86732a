"""Settings: a key made on the page is shown once and works until revoked; the theme; the access table."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, Page

from panelgate.http.access.policy import AccessPolicy
from panelgate.settings import Settings
from panelgate.web.pages.settings import server_and_access
from tests.http.key_helpers import ADMIN_TOKEN, keyed_bench, make_key, post
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream
from tests.web.browser import PHONE, watched_page

ASK = {"model": "bench/core", "messages": [{"role": "user", "content": "hi"}]}
DARK_BG = "rgb(19, 23, 27)"
"""`--bg` of the dark theme in themes.css."""


@pytest.fixture
def keyed(tmp_path: Path, upstream: FakeUpstream) -> Iterator[Gateway]:
    """Keys required on loopback, an admin token, collections `core` and `other`."""
    with keyed_bench(tmp_path / "home", upstream) as server:
        yield server


def log_in(page: Page, gateway: Gateway) -> None:
    """The session cookie `POST /login` gives for the admin token, put in the page's browser."""
    response = httpx.post(f"{gateway.url}/login", json={"token": ADMIN_TOKEN})
    assert response.status_code == 204, response.text
    cookie = response.headers["set-cookie"].split(";", 1)[0]
    name, value = cookie.split("=", 1)
    page.context.add_cookies([{"name": name, "value": value, "url": gateway.url}])


def fact(page: Page, name: str) -> str:
    """A row of the "Server and access" table."""
    return page.locator("#server tr", has=page.locator("th", has_text=name)).locator("td").inner_text()


def test_a_key_made_on_the_page_is_shown_once_works_and_stops_working_when_revoked(
    keyed: Gateway, browser: Browser
):
    with watched_page(browser, keyed.url) as watched:
        page = watched.page
        page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=keyed.url)
        log_in(page, keyed)
        page.goto(f"{keyed.url}/settings")
        page.get_by_role("button", name="Create key").click()
        page.get_by_label("Name").fill("laptop")
        page.get_by_label("Only these").check()
        page.get_by_label("bench/core").check()
        page.get_by_label("Requests a minute").fill("30")
        page.get_by_role("button", name="Create", exact=True).click()

        shown = page.get_by_role("dialog", name="Your new gateway key")
        shown.wait_for()
        assert "will not be shown again" in shown.inner_text()
        key = page.locator("#new-key").inner_text()
        shown.get_by_role("button", name="Copy").click()
        shown.get_by_text("Copied to the clipboard.").wait_for()
        assert page.evaluate("navigator.clipboard.readText()") == key

        stored = keyed.api("GET", "/api/keys", expect=200)["keys"]
        assert [(k["name"], k["collections"], k["rpm"], k["hint"]) for k in stored] == [
            ("laptop", ["core"], 30, key[-4:])
        ]
        assert post(keyed, "/v1/chat/completions", ASK, key=key).status_code == 200

        shown.get_by_role("button", name="Done").click()
        page.get_by_role("status").filter(has_text="made").wait_for()
        row = page.locator("#keys tbody tr", has_text="laptop")
        assert f"…{key[-4:]}" in row.inner_text() and "active" in row.inner_text()
        assert key not in page.content(), "the key's text is shown once only"

        page.once("dialog", lambda confirm: confirm.accept())
        row.get_by_role("button", name="Revoke").click()
        page.get_by_role("status").filter(has_text="revoked").wait_for()
        assert "revoked" in page.locator("#keys tbody tr", has_text="laptop").inner_text()
        assert post(keyed, "/v1/chat/completions", ASK, key=key).status_code == 401


def test_choosing_dark_changes_the_page_at_once_and_survives_a_reload(gateway: Gateway, browser: Browser):
    with watched_page(browser, gateway.url, theme="light") as watched:
        page = watched.page
        page.goto(f"{gateway.url}/settings")
        assert page.evaluate("document.documentElement.dataset.theme") == "light"
        page.get_by_role("radio", name="Dark").check()
        assert page.evaluate("document.documentElement.dataset.theme") == "dark"
        assert page.evaluate("getComputedStyle(document.body).backgroundColor") == DARK_BG

        page.reload()
        assert page.evaluate("document.documentElement.dataset.themeChoice") == "dark"
        assert page.get_by_role("radio", name="Dark").is_checked()
        page.goto(f"{gateway.url}/info")
        assert page.evaluate("getComputedStyle(document.body).backgroundColor") == DARK_BG
        (cookie,) = [c for c in page.context.cookies() if c["name"] == "panelgate_theme"]
        assert (cookie["value"], cookie["path"], cookie["sameSite"]) == ("dark", "/", "Strict")


def test_a_loopback_gateway_says_keys_are_not_required(gateway: Gateway, browser: Browser):
    with watched_page(browser, gateway.url) as watched:
        page = watched.page
        page.goto(f"{gateway.url}/settings")
        assert fact(page, "Gateway keys").startswith("not required")
        assert fact(page, "Login").startswith("off")
        assert fact(page, "Bind address").startswith("127.0.0.1")
        assert str(gateway.home) in fact(page, "Data folder")


def test_a_keyed_gateway_says_keys_are_required_and_never_shows_the_token_even_on_a_phone(
    keyed: Gateway, browser: Browser
):
    make_key(keyed, name="ci", collections=["core", "other"])
    with watched_page(browser, keyed.url, viewport=PHONE, theme="dark") as watched:
        page = watched.page
        log_in(page, keyed)
        page.goto(f"{keyed.url}/settings")
        assert fact(page, "Gateway keys").startswith("required")
        assert "PANELGATE_REQUIRE_KEYS is set" in fact(page, "Gateway keys")
        assert fact(page, "Login").startswith("on")
        assert "core, other" in page.locator("#keys tbody tr", has_text="ci").inner_text()
        assert ADMIN_TOKEN not in page.content()
        assert page.evaluate("document.documentElement.dataset.theme") == "dark"
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= PHONE["width"], "the page scrolls sideways at phone width"


def test_server_and_access_hides_the_database_password_and_the_admin_token(tmp_path: Path):
    settings = Settings(
        home=tmp_path,
        bind="0.0.0.0",
        admin_token="an-admin-token-of-24-chars",
        database_url="postgresql://bench:db-password-here@db.internal/panelgate",
    )
    facts = {
        fact.name: fact.value for fact in server_and_access(settings, AccessPolicy.from_settings(settings))
    }
    shown = " ".join(facts.values())
    assert "db-password-here" not in shown and "an-admin-token-of-24-chars" not in shown
    assert facts["Database"] == "postgresql+asyncpg://bench:***@db.internal/panelgate"
    assert facts["Gateway keys"].startswith("required") and "off loopback" in facts["Gateway keys"]
