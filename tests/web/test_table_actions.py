"""On a phone, every button in a table row can be reached by scrolling the page down, never sideways.

A wide table scrolls inside its own box; its action column stays in view
at the box's right edge, so a person on a phone sees Edit, Delete, Revoke
or Remove next to each row without finding the table's hidden right side.
Each button is brought into view by scrolling up and down only (the page,
and a box that scrolls down within it, as a long listing does), then must
lie inside the screen with nothing on top of it.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream
from tests.web.browser import PHONE, watched_page

REACH = """() => {
  const missed = [];
  let checked = 0;
  for (const button of document.querySelectorAll("table tbody button")) {
    if (!button.checkVisibility()) continue;
    checked += 1;
    for (let box = button.parentElement; box; box = box.parentElement) {
      const downward = /auto|scroll/.test(getComputedStyle(box).overflowY);
      if (!downward || box.scrollHeight <= box.clientHeight) continue;
      const below = button.getBoundingClientRect().top - box.getBoundingClientRect().top;
      box.scrollTop += below - box.clientHeight / 2;
    }
    window.scrollTo(0, scrollY + button.getBoundingClientRect().top - innerHeight / 2);
    const box = button.getBoundingClientRect();
    const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
    const inside = box.left >= 0 && box.right <= innerWidth && box.top >= 0 && box.bottom <= innerHeight;
    if (!inside || !hit || !button.contains(hit)) {
      missed.push(`${button.textContent.trim()} at ${box.left}–${box.right}`);
    }
  }
  const wraps = [...document.querySelectorAll(".table-wrap")];
  const sideways = scrollX !== 0 || wraps.some((box) => box.scrollLeft !== 0);
  return { checked, missed, sideways };
}"""
PAGES = {
    "models": 12,  # Edit on each model
    "collections": 4,  # Edit and Delete on each collection
    "quotas": 1,  # Remove the limit
    "settings": 1 + 2 * 6,  # Revoke the key; Switch off and Run now on each scheduled job
    "endpoints": 3,  # Add to bench on each served model not on it (after "What it serves")
    "": 0,  # At a glance: the bench has no action column
    "logs": 0,
}


def arrange_wide_tables(bench: Gateway, upstream: FakeUpstream) -> None:
    long_ids = [f"organisation-name/very-long-model-name-{n}-instruct-2507-fp8:free" for n in range(12)]
    upstream.serve(*long_ids[:9])
    for n, served_id in enumerate(long_ids[:9]):
        bench.add_model(f"model-{n}", served_id=served_id)
    upstream.listed(["m1", "m2", "m3", *long_ids])
    bench.save_collection("second-collection", ["m1", "model-0"], description="a description " * 12)
    bench.api(
        "POST",
        "/api/keys",
        {"name": "a laptop with a long name", "collections": ["core"], "rpm": 60},
        expect=201,
    )
    bench.api(
        "POST",
        "/api/limits",
        {"endpoint": "up", "measure": "requests", "window": "day", "most": 1000},
        expect=201,
    )


def reach(page: Page) -> dict[str, Any]:
    reached: dict[str, Any] = page.evaluate(REACH)
    return reached


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_every_table_row_action_is_reachable_on_a_phone_by_scrolling_down_only(
    bench: Gateway, upstream: FakeUpstream, browser: Browser, theme: str
):
    arrange_wide_tables(bench, upstream)
    with watched_page(browser, bench.url, viewport=PHONE, theme=theme) as watched:
        page = watched.page
        for slug, buttons in PAGES.items():
            page.goto(f"{bench.url}/{slug}")
            page.locator("h1").wait_for()
            if slug == "endpoints":
                page.get_by_role("button", name="What it serves").click()
                page.locator(".served table").wait_for()
            reached = reach(page)
            assert reached["checked"] == buttons, f"/{slug}: {reached['checked']} buttons in tables"
            assert reached["missed"] == [], f"/{slug}: out of reach on a phone: {reached['missed']}"
            assert not reached["sideways"], f"/{slug} scrolled sideways to reach a button"
            assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
