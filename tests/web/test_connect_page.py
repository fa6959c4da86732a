"""Endpoints › Connect: each sign-in flow driven from the dialog, against the loopback provider.

Chromium follows the provider's redirects in the tab the page opens and
lands on the gateway's `/connect/callback`; the page, polling the sign-in,
then shows the new endpoint's card without reloading. No token the provider
issued may appear on any page.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Locator, Page

from tests.connect.helpers import browse, start
from tests.support.gateway import Gateway
from tests.support.oauth_provider import CLIENT_ID, OAuthProvider
from tests.support.signin_gateway import signin_gateway
from tests.support.upstream import FakeUpstream
from tests.web.browser import PHONE, watched_page

KEPT = "window.panelgateKept"
"""Set on the page before a sign-in: still there after it, so the page was never reloaded."""


@pytest.fixture
def gateway(tmp_path: Path, provider: OAuthProvider, upstream: FakeUpstream) -> Iterator[Gateway]:
    with signin_gateway(tmp_path, provider, upstream) as started:
        yield started


def open_connect(page: Page, gateway: Gateway, choice: str) -> Locator:
    """The Endpoints page with the Connect dialog open and `choice` chosen in it."""
    page.goto(f"{gateway.url}/endpoints")
    page.evaluate(f"{KEPT} = true")
    page.get_by_role("button", name="Connect", exact=True).click()
    dialog = page.get_by_role("dialog", name="Connect a provider")
    dialog.get_by_role("radio", name=choice).check()
    return dialog


def said(page: Page, text: str) -> None:
    """The page's own status line (the dialog has one too) says `text`."""
    page.get_by_role("main").get_by_role("status").filter(has_text=text).wait_for()


def card(page: Page, name: str) -> Locator:
    return page.get_by_role("region", name=name, exact=True)


def assert_no_token(provider: OAuthProvider, *pages: Page) -> None:
    shown = "".join(page.content() for page in pages)
    assert provider.state.issued, "the provider issued something"
    assert not [token for token in provider.state.issued if token in shown]


def test_oauth_sign_in_with_your_own_app_shows_the_new_endpoint_without_a_reload(
    gateway: Gateway, provider: OAuthProvider, browser: Browser
):
    with watched_page(browser, gateway.url) as watched:
        page = watched.page
        dialog = open_connect(page, gateway, "Hugging Face")
        client = dialog.get_by_label("Client id of your own app")
        assert client.is_visible() and client.get_attribute("required") is not None
        assert "/connect/callback" in dialog.get_by_text("register one of your own").inner_text()
        assert not dialog.get_by_label("Sign in on another device").is_visible()
        client.fill(CLIENT_ID)
        with page.expect_popup() as opened:
            dialog.get_by_role("button", name="Connect", exact=True).click()
        tab = opened.value
        tab.get_by_role("heading", name="Connected: huggingface").wait_for()
        assert tab.url.startswith(f"{gateway.url}/connect/callback?")

        said(page, "Connected: huggingface.")
        signin = card(page, "huggingface").locator(".signin")
        assert "signed in with Hugging Face" in signin.inner_text()
        assert "your own app" in signin.inner_text() and "renews itself" in signin.inner_text()
        assert "Token expires" in signin.inner_text()
        assert page.evaluate(KEPT) is True, "the page was not reloaded"
        assert_no_token(provider, page, tab)
        (grant,) = gateway.api("GET", "/api/connect/endpoints", expect=200)["endpoints"]
        assert (grant["endpoint"], grant["client_id"], grant["refreshes"]) == ("huggingface", "yours", True)

        page.get_by_role("button", name="Done").click()
        page.once("dialog", lambda confirm: confirm.accept())
        card(page, "huggingface").get_by_role("button", name="Forget sign-in").click()
        said(page, "huggingface's sign-in is forgotten")
        assert card(page, "huggingface").locator(".signin").count() == 0, "the endpoint stays, unsigned"
    assert gateway.api("GET", "/api/connect/endpoints", expect=200)["endpoints"] == []


def test_key_sign_in_shows_a_key_that_does_not_expire(
    gateway: Gateway, provider: OAuthProvider, browser: Browser
):
    with watched_page(browser, gateway.url) as watched:
        page = watched.page
        dialog = open_connect(page, gateway, "OpenRouter")
        assert not dialog.get_by_label("Client id of your own app").is_visible()
        dialog.get_by_label("Endpoint name").fill("router")
        with page.expect_popup() as opened:
            dialog.get_by_role("button", name="Connect", exact=True).click()
        opened.value.get_by_role("heading", name="Connected: router").wait_for()

        dialog.get_by_role("status").filter(has_text="Connected: router.").wait_for()
        said(page, "Connected: router.")
        assert "The token does not expire." in card(page, "router").inner_text()
        assert page.locator(".banner .steps li.done").count() == 1, "the first step is ticked off"
        dialog.get_by_role("button", name="Done").click()
        assert not dialog.is_visible() and page.evaluate(KEPT) is True
        assert_no_token(provider, page, opened.value)


def test_device_sign_in_shows_the_code_and_connects_once_it_is_entered_on_a_phone_in_the_dark(
    gateway: Gateway, provider: OAuthProvider, browser: Browser
):
    with watched_page(browser, gateway.url, viewport=PHONE, theme="dark") as watched:
        page = watched.page
        dialog = open_connect(page, gateway, "GitHub Models")
        assert "Your own app's client id" in dialog.inner_text()
        dialog.get_by_role("button", name="Connect", exact=True).click()
        code = dialog.locator("output#connect-user-code")
        code.wait_for()
        where = dialog.get_by_role("link", name=f"{provider.url}/device")
        assert where.get_attribute("href") == f"{provider.url}/device"
        page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=gateway.url)
        dialog.get_by_role("button", name="Copy code").click()
        dialog.get_by_role("button", name="Copied").wait_for()
        assert page.evaluate("navigator.clipboard.readText()") == code.inner_text()
        dialog.get_by_role("status").filter(has_text="Waiting for the code to be entered").wait_for()
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]

        typed = httpx.post(f"{provider.url}/device", data={"user_code": code.inner_text()})
        assert typed.status_code == 200
        said(page, "Connected: github.")
        assert not code.is_visible(), "the code goes once it is used"
        assert "renews itself" in card(page, "github").inner_text()
        assert page.evaluate("document.documentElement.dataset.theme") == "dark"
        assert_no_token(provider, page)


def test_ollama_on_this_machine_is_connected_at_once(
    gateway: Gateway, upstream: FakeUpstream, browser: Browser
):
    upstream.serve("llama3")
    with watched_page(browser, gateway.url) as watched:
        page = watched.page
        dialog = open_connect(page, gateway, "Ollama")
        dialog.get_by_role("button", name="Connect", exact=True).click()
        said(page, "Connected: ollama.")
        assert card(page, "ollama").get_by_text("local", exact=True).is_visible()
        assert page.evaluate(KEPT) is True


def test_a_sign_in_the_provider_refuses_says_why_and_adds_nothing(
    gateway: Gateway, provider: OAuthProvider, browser: Browser
):
    provider.state.deny = True
    with watched_page(browser, gateway.url) as watched:
        page = watched.page
        dialog = open_connect(page, gateway, "Hugging Face")
        dialog.get_by_label("Client id of your own app").fill(CLIENT_ID)
        with page.expect_popup() as opened:
            dialog.get_by_role("button", name="Connect", exact=True).click()
        opened.value.get_by_role("heading", name="Not connected").wait_for()
        said(page, "Not connected: the provider said access_denied.")
        assert page.get_by_role("main").get_by_role("status").get_attribute("class") == "status error"
    assert gateway.api("GET", "/api/endpoints", expect=200)["endpoints"] == []


def test_a_card_says_when_its_token_was_renewed_and_why_a_renewal_failed(
    tmp_path: Path, provider: OAuthProvider, upstream: FakeUpstream, browser: Browser
):
    with signin_gateway(tmp_path, provider, upstream, PANELGATE_CONNECT_RENEW_CHECK_S="0.2") as gateway:
        provider.state.expires_in = 60  # due at once: renewal starts 5 minutes before expiry
        browse(start(gateway, "huggingface", client_id=CLIENT_ID)["url"])
        renewed = until(gateway, "huggingface", "renewed_at")
        provider.state.fail_refresh = True
        browse(start(gateway, "huggingface", client_id=CLIENT_ID)["url"])
        failed = until(gateway, "huggingface-2", "renewal_error")
        with watched_page(browser, gateway.url) as watched:
            page = watched.page
            page.goto(f"{gateway.url}/endpoints")
            assert "renews itself, last renewed" in card(page, "huggingface").inner_text()
            assert renewed["renewal_error"] is None
            assert f"renewal failed: {failed['renewal_error']}" in card(page, "huggingface-2").inner_text()
            assert_no_token(provider, page)


def until(gateway: Gateway, endpoint: str, field: str) -> dict[str, Any]:
    """The endpoint's sign-in record once `field` is set (the renewal job runs in the background)."""
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        shown = gateway.api("GET", "/api/connect/endpoints", expect=200)["endpoints"]
        found: dict[str, Any] = next((e for e in shown if e["endpoint"] == endpoint), {})
        if found.get(field):
            return found
        time.sleep(0.1)
    raise AssertionError(f"{endpoint}'s {field} was never set")
