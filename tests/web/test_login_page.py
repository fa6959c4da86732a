"""The login page: a visitor sent to it logs in with the admin token and lands where they were going."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser

from tests.support.gateway import Gateway
from tests.web.browser import PHONE, watched_page

TOKEN = "a-token-for-the-login-page"
REFUSED = "Failed to load resource: the server responded with a status of 401 (Unauthorized)"


@pytest.fixture
def guarded(tmp_path: Path) -> Iterator[Gateway]:
    server = Gateway(tmp_path / "home", env={"PANELGATE_ADMIN_TOKEN": TOKEN}).start()
    try:
        yield server
    finally:
        server.close()


def test_a_visitor_logs_in_with_the_admin_token_and_lands_on_the_page_asked_for(
    guarded: Gateway, browser: Browser
):
    with watched_page(browser, guarded.url) as watched:
        page = watched.page
        page.goto(f"{guarded.url}/settings")
        assert page.url == f"{guarded.url}/login?next=/settings"
        assert page.title() == "Log in · panelgate"
        token = page.get_by_label("Admin token")
        token.fill("not-the-token-at-all")
        page.get_by_role("button", name="Log in").click()
        page.get_by_role("alert").filter(has_text="that is not the admin token").wait_for()
        assert page.url.endswith("/login?next=/settings"), "a wrong token stays on the login page"
        watched.errors.remove(REFUSED)  # the browser logs the refused POST; nothing else may be logged

        token.fill(TOKEN)
        token.press("Enter")
        page.wait_for_url(f"{guarded.url}/settings")
        assert page.get_by_role("heading", level=1).inner_text() == "Settings"
        assert page.get_by_role("button", name="Log out").is_visible()


def test_the_login_page_wears_the_theme_and_fits_a_phone(guarded: Gateway, browser: Browser):
    with watched_page(browser, guarded.url, viewport=PHONE, theme="dark") as watched:
        page = watched.page
        page.goto(f"{guarded.url}/login")
        assert page.evaluate("document.documentElement.dataset.theme") == "dark"
        assert page.locator("nav").count() == 0, "the login page has no sidebar"
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        assert TOKEN not in page.content()


def test_without_an_admin_token_the_page_says_there_is_no_login(gateway: Gateway, browser: Browser):
    with watched_page(browser, gateway.url) as watched:
        page = watched.page
        page.goto(f"{gateway.url}/login")
        assert "has no login" in page.locator("main").inner_text()
        assert page.get_by_label("Admin token").count() == 0
