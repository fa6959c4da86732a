"""The frame every page shares: sidebar, first-run banner, offline assets, both themes, phone width."""

from __future__ import annotations

from playwright.sync_api import Browser

from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream
from tests.web.browser import PHONE, watched_page


def test_info_shows_the_server_and_the_first_run_steps(gateway: Gateway, browser: Browser):
    with watched_page(browser, gateway.url) as watched:
        page = watched.page
        page.goto(f"{gateway.url}/info")
        assert page.title() == "Info · panelgate"
        assert page.locator("nav a[aria-current=page]").inner_text() == "Info"
        facts = page.locator("table.facts").inner_text()
        assert str(gateway.home) in facts and "sqlite" in facts
        steps = page.locator(".banner .steps li")
        assert steps.count() == 4 and page.locator(".banner .steps li.done").count() == 0


def test_first_run_steps_tick_off_as_the_bench_fills(
    bench: Gateway, upstream: FakeUpstream, browser: Browser
):
    with watched_page(browser, bench.url) as watched:
        watched.page.goto(f"{bench.url}/logs")
        done = watched.page.locator(".banner .steps li.done")
        assert done.count() == 3  # endpoint, models, collection; nothing asked yet
        bench.api(
            "POST",
            "/v1/chat/completions",
            {"model": "bench/core", "messages": [{"role": "user", "content": "hi"}]},
        )
        watched.page.reload()
        assert watched.page.locator(".banner").count() == 0
        assert "bench/core" in watched.page.locator("table").first.inner_text()


def test_the_dark_theme_and_the_phone_menu(gateway: Gateway, browser: Browser):
    with watched_page(browser, gateway.url, viewport=PHONE, theme="dark") as watched:
        page = watched.page
        page.goto(f"{gateway.url}/info")
        assert page.evaluate("document.documentElement.dataset.theme") == "dark"
        links = page.locator("#nav-links")
        assert not links.is_visible()
        page.get_by_role("button", name="Menu").click()
        assert links.is_visible()
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= PHONE["width"], "the page scrolls sideways at phone width"


def test_dialogs_work_from_the_keyboard(bench: Gateway, browser: Browser):
    with watched_page(browser, bench.url) as watched:
        page = watched.page
        page.goto(f"{bench.url}/collections")
        opener = page.get_by_role("button", name="New collection")
        opener.focus()
        page.keyboard.press("Enter")
        editor = page.get_by_role("dialog", name="New collection")
        editor.wait_for()
        assert page.evaluate("document.activeElement.closest('dialog') !== null"), (
            "focus stayed behind the dialog"
        )
        page.keyboard.press("Escape")
        editor.wait_for(state="hidden")
        assert page.evaluate("document.activeElement.textContent.trim()") == "New collection"
