"""The whole first run, in a browser: from an empty gateway to a judged panel, and every page pictured.

A person with nothing set up adds an endpoint, puts two models on the bench,
makes a collection, asks it through the API, watches the panel arrive on the
Gateway card, opens a seat and records a verdict with a false claim; the
first-run banner ticks each step off on the way. Then every page is visited
in both themes at desktop and phone width, failing on any console error or
request to another host, and saved as a screenshot when PANELGATE_SCREENSHOTS
names a folder (docs/screenshots holds the copy the README links).
"""

from __future__ import annotations

import httpx
from playwright.sync_api import Browser, Locator, Page

from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream
from tests.web.browser import DESKTOP, PHONE, screenshot_dir, watched_page

PAGES = (
    "",
    "gateway",
    "judge",
    "record",
    "collections",
    "models",
    "endpoints",
    "discover",
    "benchmarks",
    "quotas",
    "activity",
    "settings",
    "logs",
    "info",
)
"""Each page's path after `/`; the empty one is At a glance, at `/`."""
LIVE_WITHIN_MS = 5000


def steps_done(page: Page) -> int:
    return page.locator(".banner .steps li.done").count()


def test_first_run_from_an_empty_gateway_to_a_judged_panel(
    gateway: Gateway, upstream: FakeUpstream, browser: Browser
):
    upstream.listed(["qwen-coder", "llama-small"])
    with watched_page(browser, gateway.url) as watched:
        page = watched.page
        page.goto(gateway.url)
        assert page.locator("h1").inner_text() == "At a glance" and steps_done(page) == 0

        follow(page, page.get_by_role("link", name="Add an endpoint"))
        page.get_by_role("button", name="Add endpoint").click()
        adding = page.get_by_role("dialog", name="Add an endpoint")
        adding.get_by_label("Name").fill("local")
        adding.get_by_label("Base URL").fill(upstream.url)
        adding.get_by_role("button", name="Test and add").click()
        page.get_by_role("region", name="local").wait_for()
        assert steps_done(page) == 1

        follow(page, page.get_by_role("link", name="Put a model on the bench"))
        for served, alias in (("qwen-coder", "coder"), ("llama-small", "llama")):
            page.get_by_role("button", name="Put a model on the bench").click()
            putting = page.get_by_role("dialog", name="Put a model on the bench")
            putting.get_by_label("Served id").fill(served)
            putting.get_by_label("Alias").fill(alias)
            putting.get_by_role("button", name="Put it on the bench").click()
            page.get_by_role("button", name=f"Edit {alias}").wait_for()
        assert steps_done(page) == 2

        follow(page, page.get_by_role("link", name="Make a collection"))
        page.get_by_role("button", name="New collection").click()
        editor = page.get_by_role("dialog", name="New collection")
        editor.get_by_label("Name").fill("review")
        editor.get_by_role("checkbox", name="coder").check()
        editor.get_by_role("checkbox", name="llama").check()
        editor.get_by_role("button", name="Save").click()
        page.locator("#collections").get_by_text("bench/review", exact=True).wait_for()
        assert steps_done(page) == 3

        follow(page, page.locator("nav").get_by_role("link", name="Gateway"))
        page.get_by_text("No panels yet").wait_for()
        page.evaluate("window.notReloaded = true")
        body = {
            "model": "bench/review",
            "messages": [{"role": "user", "content": "is this loop off by one?"}],
        }
        asked = httpx.post(f"{gateway.url}/v1/chat/completions", json=body, timeout=30).json()["bench"]
        coder = page.locator("#panels li").get_by_role("button", name="member · coder")
        coder.wait_for(timeout=LIVE_WITHIN_MS)
        assert page.locator("#owed").inner_text() == "2 answers await a verdict — judge them"

        coder.click()
        seat = page.get_by_role("dialog", name="member · coder")
        seat.locator("#seat-answer").get_by_text("answer from qwen-coder").wait_for()
        seat.get_by_label("Not useful").check()
        seat.get_by_label("False claims").fill("the loop runs one time too many")
        seat.get_by_role("button", name="Save verdict").click()
        seat.wait_for(state="hidden")
        assert "✗" in coder.inner_text()
        assert page.locator("#owed").inner_text() == "1 answer awaits a verdict — judge them"
        assert page.evaluate("window.notReloaded") is True

        page.reload()
        assert page.locator(".banner").count() == 0, "the banner stays after the first panel"

    record = gateway.api("GET", "/bench/record?collection=bench/review")["aliases"]
    assert (record["coder"]["notUseful"], record["coder"]["judged"]) == (1, 1)
    coder_call = next(s["call"] for s in asked["seats"] if s["alias"] == "coder")
    judged = gateway.api("GET", f"/api/panels/{asked['panel']}")["seats"]
    (verdict,) = [s["verdict"] for s in judged if s["call"] == coder_call]
    assert verdict["false"] == ["the loop runs one time too many"]


def test_every_page_in_both_themes_at_both_widths(bench: Gateway, upstream: FakeUpstream, browser: Browser):
    httpx.post(
        f"{bench.url}/v1/chat/completions",
        json={"model": "bench/core", "messages": [{"role": "user", "content": "say hi"}]},
        timeout=30,
    )
    bench.api("POST", "/api/keys", {"name": "laptop"}, expect=201)
    folder = screenshot_dir()
    taken, visited = [], []
    for theme in ("light", "dark"):
        for width, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
            with watched_page(browser, bench.url, viewport=viewport, theme=theme) as watched:
                page = watched.page
                for slug in PAGES:
                    page.goto(f"{bench.url}/{slug}")
                    page.locator("h1").wait_for()
                    if slug == "gateway":
                        page.locator("#panels li").first.wait_for()
                    if slug == "judge":
                        page.locator("#seats .answer p").first.wait_for()
                    assert page.evaluate("document.documentElement.dataset.theme") == theme
                    scroll = page.evaluate("document.documentElement.scrollWidth")
                    assert scroll <= viewport["width"], f"/{slug} scrolls sideways at {width} width"
                    if folder is not None:
                        path = folder / f"{slug or 'glance'}-{theme}-{width}.png"
                        page.screenshot(path=str(path), full_page=True)
                        taken.append(path)
                    visited.append(slug)
    assert visited == [*PAGES] * 4
    assert all(path.stat().st_size > 1000 for path in taken)


def follow(page: Page, link: Locator) -> None:
    """Click `link` and wait for the new page's load: its buttons are in the HTML before its deferred
    script gives them their handlers, and a click in between does nothing (seen on a slow CI run)."""
    with page.expect_navigation():
        link.click()
