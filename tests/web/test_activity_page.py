"""Activity: the day's figures as small charts after a run, in both themes, on a desktop and a phone,
each with its words for a screen reader, and a new panel drawn without a reload."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page

from tests.http.helpers import ask, hello
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream
from tests.web.browser import DESKTOP, PHONE, watched_page

ACCENT = {"light": "rgb(29, 91, 184)", "dark": "rgb(121, 175, 255)"}
"""themes.css's `--accent`, which the first series of a chart is drawn in."""
LIVE_WITHIN_MS = 15_000
"""The page reads itself again every 10 s."""
CHARTS = (
    "Panels and route turns",
    "Seat time",
    "Seats by outcome",
    "Upstream errors per endpoint",
    "Tokens per endpoint",
    "Cost per endpoint",
    "Verdicts recorded",
    "Route failovers",
)


def run(bench: Gateway, upstream: FakeUpstream, panels: int = 2) -> None:
    """`panels` panels of `core` (m1 and m3 answer, m2 fails), and a verdict on the first panel's m1."""
    upstream.behave("m1", usage=(120, 30))
    upstream.behave("m3", usage=(40, 10))
    upstream.behave("m2", status=500, error_message="boom")
    calls = [
        {s["alias"]: s["call"] for s in ask(bench, hello()).json()["bench"]["seats"]} for _ in range(panels)
    ]
    bench.api("POST", "/bench/verdict", {"call": calls[0]["m1"], "useful": True}, expect=200)


def words(page: Page, chart: str) -> str:
    """What a screen reader hears of a chart: its SVG's description."""
    return page.locator(f"#chart-{chart} svg desc").text_content() or ""


@pytest.mark.parametrize(
    ("viewport", "theme"), [(DESKTOP, "light"), (DESKTOP, "dark"), (PHONE, "light"), (PHONE, "dark")]
)
def test_the_charts_show_the_runs_figures_without_scrolling_sideways(
    bench: Gateway, upstream: FakeUpstream, browser: Browser, viewport: dict[str, int], theme: str
) -> None:
    run(bench, upstream)
    with watched_page(browser, bench.url, viewport=viewport, theme=theme) as watched:
        page = watched.page
        page.goto(f"{bench.url}/activity")
        assert page.evaluate("document.documentElement.dataset.theme") == theme
        for title in CHARTS:
            assert page.get_by_role("img", name=title, exact=True).is_visible()
        assert "panels: 2 in all" in words(page, "traffic")
        assert "ok: 4 in all" in words(page, "seats") and "error: other: 2 in all" in words(page, "seats")
        assert "up: 2 in all" in words(page, "upstream-errors")
        assert "up: 400 in all" in words(page, "tokens")
        assert "useful: 1 in all" in words(page, "verdicts")
        assert "failovers: none" in words(page, "failovers")
        bar = page.locator('#chart-traffic g[data-series="panels"] rect').first
        assert bar.evaluate("rect => getComputedStyle(rect).fill") == ACCENT[theme]
        assert "panels" in page.locator("#chart-traffic .this-hour").inner_text()
        assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
        for title in CHARTS:
            box = page.get_by_role("img", name=title, exact=True).bounding_box()
            assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= viewport["width"]


def test_a_new_panel_shows_without_a_reload(bench: Gateway, upstream: FakeUpstream, browser: Browser) -> None:
    run(bench, upstream, panels=1)
    with watched_page(browser, bench.url) as watched:
        page = watched.page
        page.goto(f"{bench.url}/activity")
        assert "panels: 1 in all" in words(page, "traffic")
        ask(bench, hello())
        page.wait_for_function(
            "() => document.querySelector('#chart-traffic desc').textContent.includes('panels: 2 in all')",
            timeout=LIVE_WITHIN_MS,
        )
        assert page.get_by_role("img", name="Panels and route turns", exact=True).is_visible()


def test_with_nothing_recorded_each_chart_says_so_and_the_nav_leads_here(
    gateway: Gateway, browser: Browser
) -> None:
    with watched_page(browser, gateway.url) as watched:
        page = watched.page
        page.goto(f"{gateway.url}/quotas")
        page.get_by_role("navigation", name="Pages").get_by_role("link", name="Activity").click()
        page.wait_for_url(f"{gateway.url}/activity")
        assert page.locator("text.nothing").count() == len(CHARTS)
        assert "/metrics" in page.locator("#not-stored").inner_text()
