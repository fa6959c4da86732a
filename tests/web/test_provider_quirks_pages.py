"""The Gateway and Judge views say which seat answered as another model, and which was asked twice."""

from __future__ import annotations

import httpx
from playwright.sync_api import Browser

from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream
from tests.web.browser import watched_page


def test_the_gateway_and_judge_views_show_a_swap_and_a_second_attempt(
    bench: Gateway, upstream: FakeUpstream, browser: Browser
) -> None:
    upstream.behave("m2", served_as="cheap-model-7b")
    upstream.behave("m3", empty_times=1, answer="after some thought: 42")
    body = {"model": "bench/core", "messages": [{"role": "user", "content": "why?"}], "max_tokens": 100}
    reply = httpx.post(f"{bench.url}/v1/chat/completions", json=body, timeout=30).raise_for_status()
    panel = reply.json()["bench"]["panel"]
    with watched_page(browser, bench.url) as watched:
        page = watched.page
        page.goto(f"{bench.url}/gateway")
        chip = page.locator(".chip", has_text="m2")
        chip.locator(".served-as", has_text="answered as cheap-model-7b").wait_for()
        assert page.locator(".served-as").count() == 1
        page.goto(f"{bench.url}/judge?panel={panel}")
        page.locator(".seat .served-as", has_text="answered as cheap-model-7b").wait_for()
        page.locator(".seat .chip", has_text="asked 2 times").wait_for()
        assert page.locator(".seat .chip", has_text="asked 2 times").count() == 1


def test_a_provider_quirk_is_turned_off_from_the_gateway_limits_dialog(
    bench: Gateway, browser: Browser
) -> None:
    with watched_page(browser, bench.url) as watched:
        page = watched.page
        page.goto(f"{bench.url}/collections")
        page.get_by_role("button", name="Gateway limits").click()
        limits = page.get_by_role("dialog", name="Gateway limits")
        retry = limits.get_by_label("Ask an empty answer cut at its token limit again")
        assert retry.is_checked()
        retry.uncheck()
        limits.get_by_role("button", name="Save").click()
        page.get_by_text("Gateway limits saved.").wait_for()
    saved = bench.api("GET", "/api/settings/gateway", expect=200)["gateway"]
    assert (saved["retry_empty_length"], saved["detect_quota_notices"], saved["swap_alerts"]) == (
        False,
        True,
        True,
    )
