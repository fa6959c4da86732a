"""Gateway: the recent panels live, the answers owed a verdict in words, the seat dialog, the way to Judge."""

from __future__ import annotations

from typing import Any

import httpx
from playwright.sync_api import Browser

from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream
from tests.web.browser import PHONE, watched_page

LIVE_WITHIN_MS = 5000


def ask(gateway: Gateway, collection: str, prompt: str) -> dict[str, Any]:
    body = {"model": f"bench/{collection}", "messages": [{"role": "user", "content": prompt}]}
    reply: dict[str, Any] = (
        httpx.post(f"{gateway.url}/v1/chat/completions", json=body, timeout=30).raise_for_status().json()
    )
    return reply


def test_a_panel_shows_up_live_and_a_seat_is_judged_without_a_reload(
    bench: Gateway, upstream: FakeUpstream, browser: Browser
):
    upstream.behave("m1", answer="| n | sq |\n|--:|--:|\n| 3 | 9 |\n\n<script>alert(1)</script>")
    with watched_page(browser, bench.url) as watched:
        page = watched.page
        page.goto(f"{bench.url}/gateway")
        page.get_by_text("No panels yet").wait_for()
        page.evaluate("window.notReloaded = true")
        ask(bench, "core", "square three")
        panel = page.locator("#panels li").filter(has_text="square three")
        chip = panel.get_by_role("button", name="member · m1")
        chip.wait_for(timeout=LIVE_WITHIN_MS)
        assert page.locator("#owed").inner_text() == "3 answers await a verdict — judge them"

        chip.click()
        seat = page.get_by_role("dialog", name="member · m1")
        seat.locator("#seat-answer table").wait_for()
        assert "<script>alert(1)</script>" in seat.locator("#seat-answer").inner_text()
        assert seat.locator("#seat-answer script").count() == 0
        seat.get_by_label("Not useful").check()
        seat.get_by_label("Note").fill("the table is right, the claim is not")
        seat.get_by_label("False claims").fill("nine is prime")
        seat.get_by_role("button", name="Save verdict").click()
        seat.wait_for(state="hidden")
        assert "✗" in chip.inner_text() and "judged not useful" in chip.inner_text()
        assert page.locator("#owed").inner_text() == "2 answers await a verdict — judge them"
        assert page.evaluate("window.notReloaded") is True

    record = bench.api("GET", "/bench/record?collection=bench/core", expect=200)
    assert record["aliases"]["m1"]["notUseful"] == 1
    judged = bench.api("GET", "/api/panels?limit=1", expect=200)["panels"][0]["seats"][0]["verdict"]
    assert (judged["useful"], judged["false"]) == (False, ["nine is prime"])


def test_the_owed_count_says_what_it_counts_and_leads_to_judge(bench: Gateway, browser: Browser):
    reply = ask(bench, "core", "one owed panel")
    calls = [seat["call"] for seat in reply["bench"]["seats"]]
    for call in calls[:2]:
        bench.api("POST", "/api/verdicts", {"call": call, "useful": True}, expect=200)
    with watched_page(browser, bench.url) as watched:
        page = watched.page
        page.goto(f"{bench.url}/gateway")
        owed = page.locator("#owed")
        owed.get_by_text("1 answer awaits a verdict —").wait_for()
        judge = owed.get_by_role("link", name="judge them")
        assert judge.get_attribute("href") == "/judge"
        assert "no verdict yet" in (owed.get_attribute("title") or "")
        judge.click()
        page.wait_for_url(f"{bench.url}/judge?panel={reply['bench']['panel']}")
        assert page.locator("h1").inner_text() == "Judge"

        bench.api("POST", "/api/verdicts", {"call": calls[2], "useful": False}, expect=200)
        page.goto(f"{bench.url}/gateway")
        owed.get_by_text("No answer here awaits a verdict.").wait_for()
        assert not owed.get_by_role("link").is_visible()


def test_each_panel_opens_in_the_judge_view_even_once_judged(bench: Gateway, browser: Browser):
    older = ask(bench, "core", "the older question")["bench"]
    ask(bench, "core", "the newer question")
    for seat in older["seats"]:
        bench.api("POST", "/api/verdicts", {"call": seat["call"], "useful": True}, expect=200)
    with watched_page(browser, bench.url) as watched:
        page = watched.page
        page.goto(f"{bench.url}/gateway")
        panel = page.locator("#panels li").filter(has_text="the older question")
        link = panel.get_by_role("link", name="Judge the panel of")
        assert link.get_attribute("href") == f"/judge?panel={older['panel']}"
        link.click()
        page.wait_for_url(f"{bench.url}/judge?panel={older['panel']}")
        page.locator("#panel-prompt").get_by_text("the older question").wait_for()
        assert (
            page.locator("#panel-state").inner_text()
            == "3 of 3 answers judged. No best answer chosen yet (b)."
        )
        pressed = page.get_by_role("button", name="Useful (seat 1, m1)", exact=True).get_attribute(
            "aria-pressed"
        )
        assert pressed == "true"


def test_a_member_left_out_is_a_grey_chip_saying_why_at_phone_width_in_the_dark(
    bench: Gateway, browser: Browser
):
    bench.api("PATCH", "/api/models/m3", {"role": "vision"}, expect=200)  # seated only for images
    ask(bench, "core", "a text prompt")
    with watched_page(browser, bench.url, viewport=PHONE, theme="dark") as watched:
        page = watched.page
        page.goto(f"{bench.url}/gateway")
        skipped = page.locator("#panels .chip.skipped")
        skipped.wait_for()
        assert skipped.evaluate("chip => chip.tagName") == "SPAN"
        assert skipped.inner_text().startswith("member · m3")
        assert "vision specialist" in (skipped.get_attribute("title") or "")
        assert "not asked: vision specialist" in skipped.text_content()
        assert page.locator("#panels button.chip").count() == 2
        assert page.evaluate("document.documentElement.dataset.theme") == "dark"
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= PHONE["width"], "the page scrolls sideways at phone width"


def test_an_unknown_seat_has_no_answer_to_show(gateway: Gateway):
    reply = httpx.get(f"{gateway.url}/gateway/seats/p1.member9/answer")
    assert reply.status_code == 404 and "p1.member9" in reply.text
