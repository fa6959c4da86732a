"""The API docs page draws the gateway's API in Chromium with nothing but the gateway's own files."""

from __future__ import annotations

from playwright.sync_api import Browser

from tests.support.gateway import Gateway
from tests.web.browser import watched_page


def test_swagger_ui_lists_the_admin_api_from_the_gateway_alone(gateway: Gateway, browser: Browser):
    with watched_page(browser, gateway.url) as watched:  # fails on any request to another host
        page = watched.page
        page.goto(f"{gateway.url}/docs")
        page.locator(".swagger-ui .info .title", has_text="panelgate").wait_for()
        page.locator(".opblock-summary-path", has_text="/api/models").first.wait_for()
