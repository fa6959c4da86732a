"""At a glance's strip: panels today, answers owed a verdict (to the Judge view), the leader per shape."""

from __future__ import annotations

from playwright.sync_api import Browser

from tests.http.helpers import ask
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream
from tests.web.browser import PHONE, watched_page


def panel(gateway: Gateway, collection: str = "core") -> dict[str, str]:
    """Alias → call id of one panel."""
    body = {"model": f"bench/{collection}", "messages": [{"role": "user", "content": "say hi"}]}
    reply = ask(gateway, body)
    assert reply.status_code == 200, reply.text
    return {seat["alias"]: seat["call"] for seat in reply.json()["bench"]["seats"]}


def judge(gateway: Gateway, call: str, useful: bool) -> None:
    gateway.api("POST", "/bench/verdict", {"call": call, "useful": useful}, expect=200)


def test_the_strip_counts_todays_panels_the_answers_owed_and_names_each_shapes_leader(
    bench: Gateway, upstream: FakeUpstream, browser: Browser
):
    upstream.behave("m3", status=500, error_message="boom")  # a failed seat is owed nothing
    bench.save_collection("quiet", ["m1"], verdicts_owed="none")  # nor is a panel that owes no verdicts
    first, second = panel(bench), panel(bench)
    panel(bench, "quiet")
    judge(bench, first["m1"], True)
    judge(bench, first["m2"], False)
    judge(bench, second["m1"], True)
    with watched_page(browser, bench.url) as watched:
        page = watched.page
        page.goto(bench.url)
        today = page.get_by_role("region", name="Today")
        assert today.locator("#panels-today").inner_text().startswith("3 panels today")
        owed = today.get_by_role("link", name="1 answer awaits a verdict")
        assert owed.get_attribute("href") == "/judge"
        leader = today.locator("#leaders li")
        assert leader.count() == 1 and leader.inner_text().startswith("general: m1 ")
        assert leader.inner_text().endswith("% useful (2 verdicts)")
        leader.get_by_role("link", name="m1").click()
        page.wait_for_url(f"{bench.url}/record#shape-general")
        assert page.locator("#shape-general tbody th").first.inner_text() == "m1"


def test_before_anything_is_asked_the_strip_says_so_at_phone_width_in_the_dark(
    bench: Gateway, browser: Browser
):
    with watched_page(browser, bench.url, viewport=PHONE, theme="dark") as watched:
        page = watched.page
        page.goto(bench.url)
        assert page.locator("#panels-today").inner_text().startswith("0 panels today")
        assert page.locator("#owed").inner_text() == "0 answers await a verdict"
        leaders = page.locator("#leaders")
        assert "No verdicts yet" in leaders.inner_text()
        assert leaders.get_by_role("link", name="the record").get_attribute("href") == "/record"
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= PHONE["width"], "the page scrolls sideways at phone width"
