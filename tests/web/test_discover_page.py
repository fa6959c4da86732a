"""Discover in Chromium: the fixture catalogs listed offline (cached copies) with free/new marks and
reach, a row added with its button and followed in the onboarding queue, in both themes and at phone
width."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Locator, Page

from tests.catalog.discover_setup import groq_bench
from tests.catalog.loopback import MODELS_DEV_PATH, OPENROUTER_PATH, CatalogServer, refresh
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream
from tests.web.browser import PHONE, watched_page


@pytest.fixture
def offline(gateway: Gateway, upstream: FakeUpstream, catalogs: CatalogServer) -> Gateway:
    """The catalogs read once, then unreachable: the gateway reads its cached copies."""
    groq_bench(gateway, upstream, catalogs)
    catalogs.fail(MODELS_DEV_PATH)
    catalogs.fail(OPENROUTER_PATH)
    refresh(gateway)
    return gateway


def row(page: Page, key: str) -> Locator:
    return page.locator(f'tr[data-row="{key}"]')


def test_the_page_lists_the_cached_catalogs_with_marks_and_reach_and_adds_a_row(
    offline: Gateway, browser: Browser
) -> None:
    with watched_page(browser, offline.url) as watched:
        page = watched.page
        page.goto(f"{offline.url}/discover")
        assert page.locator("#offline").is_visible()
        assert "models.dev: read from the cached copy" in page.locator("#catalogs").inner_text()
        keys = page.locator("#discover-rows tbody tr").evaluate_all("rows => rows.map(r => r.dataset.row)")
        assert keys == [
            "groq/llama-3.1-8b-instant",
            "openrouter/deepseek/deepseek-chat-v3-0324:free",
            "freebies/tiny-chat",
            "groq/llama-3.3-70b-versatile",
            "groq/qwen-qwq-32b",
        ]
        instant = row(page, "groq/llama-3.1-8b-instant")
        assert instant.locator(".marks").inner_text().strip() == "free"
        assert "connected" in instant.locator(".reach").inner_text()
        assert "on the bench as llama" in row(page, "groq/llama-3.3-70b-versatile").inner_text()
        assert (
            "add an endpoint for freebies" in row(page, "freebies/tiny-chat").locator(".reach").inner_text()
        )
        instant.get_by_role("button", name="Add groq/llama-3.1-8b-instant to the bench").click()
        page.get_by_role("status").filter(has_text="queued as llama-3.1-8b-instant through groq").wait_for()
        instant.get_by_text("on the bench as llama-3.1-8b-instant").wait_for(timeout=60_000)
        assert instant.get_by_role("link", name="see it on Models").is_visible()
    queue = offline.api("GET", "/api/onboarding", expect=200)["items"]
    assert [(item["served_id"], item["endpoint"]) for item in queue] == [("llama-3.1-8b-instant", "groq")]
    models = {m["alias"] for m in offline.api("GET", "/api/models", expect=200)["models"]}
    assert "llama-3.1-8b-instant" in models


def test_filters_show_paid_models_on_other_providers_free_ones_only_and_a_search(
    offline: Gateway, browser: Browser
):
    with watched_page(browser, offline.url, viewport=PHONE, theme="dark") as watched:
        page = watched.page
        page.goto(f"{offline.url}/discover")
        page.get_by_label("Paid models on other providers too").check()
        page.get_by_role("button", name="Show").click()
        page.wait_for_url("**/discover?*all=true*")
        assert "other" in row(page, "oddball/odd-1").locator(".reach").inner_text()
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        page.get_by_label("Paid models on other providers too").uncheck()
        page.get_by_label("Free only").check()
        page.get_by_role("button", name="Show").click()
        page.wait_for_url("**/discover?free=true*")
        marks = page.locator("#discover-rows .marks").all_inner_texts()
        assert len(marks) == 3 and all("free" in mark for mark in marks)
        assert page.get_by_label("Search").input_value() == ""
        page.get_by_label("Search").fill("tiny")
        page.get_by_role("button", name="Show").click()
        page.wait_for_url("**q=tiny*")
        assert page.locator("#discover-rows tbody tr").count() == 1


def test_a_gateway_that_never_read_a_catalog_says_how_to(gateway: Gateway, browser: Browser) -> None:
    with watched_page(browser, gateway.url) as watched:
        page = watched.page
        page.goto(f"{gateway.url}/discover")
        assert "No catalog has been read yet" in page.locator("#never-read").inner_text()
        assert page.get_by_role("button", name="Refresh catalogs").is_visible()
