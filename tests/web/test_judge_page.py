"""Judge: a panel's seats side by side, judged from the keyboard alone; failed seats; moving on."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page

from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream
from tests.web.browser import DESKTOP, PHONE, watched_page

LOOKS = [
    pytest.param(DESKTOP, "light", id="desktop-light"),
    pytest.param(PHONE, "dark", id="phone-dark"),
    pytest.param(DESKTOP, "dark", id="desktop-dark"),
    pytest.param(PHONE, "light", id="phone-light"),
]


def ask(gateway: Gateway, prompt: str) -> dict[str, Any]:
    """One panel of `core` (members m1, m2, m3): its id and alias → call id."""
    body = {"model": "bench/core", "messages": [{"role": "user", "content": prompt}]}
    reply = httpx.post(f"{gateway.url}/v1/chat/completions", json=body, timeout=30).raise_for_status()
    bench = reply.json()["bench"]
    return {"panel": bench["panel"], "calls": {seat["alias"]: seat["call"] for seat in bench["seats"]}}


def verdicts(gateway: Gateway, panel: str) -> dict[str, Any]:
    """Alias → the seat's current verdict (None: not judged), as the API stores it."""
    seats = gateway.api("GET", f"/api/panels/{panel}", expect=200)["seats"]
    return {seat["alias"]: seat["verdict"] for seat in seats}


def press(page: Page, *keys: str) -> None:
    for key in keys:
        page.keyboard.press(key)


def said(page: Page, text: str) -> None:
    page.locator("#status").filter(has_text=text).wait_for()


def shows(page: Page, prompt: str) -> None:
    page.locator("#panel-prompt").filter(has_text=prompt).wait_for()


def fits(page: Page, viewport: dict[str, int], theme: str) -> None:
    assert page.evaluate("document.documentElement.dataset.theme") == theme
    assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]


@pytest.mark.parametrize(("viewport", "theme"), LOOKS[:2])
def test_a_panel_is_judged_from_the_keyboard_two_useful_and_the_best_better_than_the_rest(
    bench: Gateway, upstream: FakeUpstream, browser: Browser, viewport: dict[str, int], theme: str
):
    upstream.behave("m1", answer="A **set** hashes.\n\n<script>alert(1)</script>")
    asked = ask(bench, "when is a set faster than a list?")
    calls = asked["calls"]
    with watched_page(browser, bench.url, viewport=viewport, theme=theme) as watched:
        page = watched.page
        page.goto(f"{bench.url}/judge")
        seats = page.locator("#seats > li")
        seats.first.locator(".answer strong").wait_for()
        assert seats.count() == 3
        assert "<script>alert(1)</script>" in seats.first.locator(".answer").inner_text()
        assert page.locator("#seats script").count() == 0
        assert page.url == f"{bench.url}/judge?panel={asked['panel']}"
        page.evaluate("window.notReloaded = true")

        press(page, "1", "u", "2", "u", "3", "n")
        page.locator("#panel-state").get_by_text(
            "3 of 3 answers judged. No best answer chosen yet"
        ).wait_for()
        press(page, "2", "b")
        said(page, "Panel judged. No other panel owes a verdict now")
        best = page.get_by_role("button", name="Best answer (seat 2, m2)", exact=True)
        assert best.get_attribute("aria-pressed") == "true"
        assert (
            page.get_by_role("button", name="Not useful (seat 3, m3)", exact=True).get_attribute(
                "aria-pressed"
            )
            == "true"
        )
        assert "Best: seat 2, m2." in page.locator("#panel-state").inner_text()
        assert page.evaluate("window.notReloaded") is True
        fits(page, viewport, theme)

    stored = verdicts(bench, asked["panel"])
    assert {alias: v["useful"] for alias, v in stored.items()} == {"m1": True, "m2": True, "m3": False}
    assert stored["m2"]["better_than"] == sorted([calls["m1"], calls["m3"]])
    assert stored["m1"]["better_than"] == [] and stored["m3"]["better_than"] == []
    record = bench.api("GET", "/bench/record?collection=bench/core", expect=200)["aliases"]
    assert [(record[a]["useful"], record[a]["notUseful"]) for a in ("m1", "m2", "m3")] == [
        (1, 0),
        (1, 0),
        (0, 1),
    ]
    newest = bench.api("GET", "/api/record", expect=200)["verdicts"]
    assert {(v["call"], v["source"]) for v in newest} == {(call, "dashboard") for call in calls.values()}


@pytest.mark.parametrize(("viewport", "theme"), LOOKS[2:])
def test_choosing_another_best_answer_takes_the_first_ones_pairs_back(
    bench: Gateway, browser: Browser, viewport: dict[str, int], theme: str
):
    asked = ask(bench, "pick one")
    calls = asked["calls"]
    with watched_page(browser, bench.url, viewport=viewport, theme=theme) as watched:
        page = watched.page
        page.goto(f"{bench.url}/judge?panel={asked['panel']}")
        page.locator("#seats > li").nth(2).locator(".answer p").wait_for()
        press(page, "1", "b")
        said(page, "Saved: seat 1, m1, the best answer.")
        press(page, "3", "b")
        said(page, "Saved: seat 3, m3, the best answer.")
        assert (
            page.get_by_role("button", name="Best answer (seat 1, m1)", exact=True).get_attribute(
                "aria-pressed"
            )
            == "false"
        )
        fits(page, viewport, theme)

    stored = verdicts(bench, asked["panel"])
    assert stored["m3"]["better_than"] == sorted([calls["m1"], calls["m2"]]) and stored["m3"]["useful"]
    assert stored["m1"]["better_than"] == [] and stored["m1"]["useful"], "the first choice stays useful"
    assert stored["m2"] is None


@pytest.mark.parametrize(("viewport", "theme"), LOOKS[:2])
def test_a_failed_seat_shows_as_failed_without_verdict_buttons(
    bench: Gateway, upstream: FakeUpstream, browser: Browser, viewport: dict[str, int], theme: str
):
    upstream.behave("m2", status=400, error_message="the request was malformed")
    asked = ask(bench, "one seat fails")
    with watched_page(browser, bench.url, viewport=viewport, theme=theme) as watched:
        page = watched.page
        page.goto(f"{bench.url}/judge")
        failed = page.locator("#seats > li").nth(1)
        failed.locator(".seat-error").wait_for()
        assert "the request was malformed" in failed.locator(".seat-error").inner_text()
        assert "failed" in failed.locator(".chip").inner_text()
        assert failed.get_by_role("button").count() == 0
        for answered in (0, 2):
            assert page.locator("#seats > li").nth(answered).get_by_role("button").count() == 3
        assert (
            page.locator("#panel-state").inner_text()
            == "0 of 2 answers judged. No best answer chosen yet (b)."
        )

        press(page, "2", "u")
        said(page, "Seat 2 failed: a failed seat is not judged.")
        press(page, "1", "u", "3", "b")
        said(page, "Panel judged.")
        fits(page, viewport, theme)

    stored = verdicts(bench, asked["panel"])
    assert stored["m2"] is None
    assert stored["m3"]["better_than"] == [asked["calls"]["m1"]], "the failed seat is not compared"


@pytest.mark.parametrize(("viewport", "theme"), LOOKS[2:])
def test_next_and_previous_go_through_the_panels_owed_a_verdict_and_a_judged_one_moves_on(
    bench: Gateway, browser: Browser, viewport: dict[str, int], theme: str
):
    oldest = ask(bench, "the oldest question")
    judged = ask(bench, "a question already judged")
    for call in judged["calls"].values():
        bench.api("POST", "/api/verdicts", {"call": call, "useful": True}, expect=200)
    newest = ask(bench, "the newest question")
    with watched_page(browser, bench.url, viewport=viewport, theme=theme) as watched:
        page = watched.page
        page.goto(f"{bench.url}/judge")
        shows(page, "the newest question")
        assert page.locator("#place").inner_text() == "Panel 1 of 2"
        press(page, "j")
        shows(page, "the oldest question")
        assert page.locator("#place").inner_text() == "Panel 2 of 2"
        assert page.url == f"{bench.url}/judge?panel={oldest['panel']}"
        press(page, "j")
        said(page, "No more panels owe a verdict.")
        press(page, "k")
        shows(page, "the newest question")
        press(page, "ArrowRight")
        shows(page, "the oldest question")
        press(page, "ArrowLeft")
        shows(page, "the newest question")
        press(page, "k")
        said(page, "This is the first panel.")

        press(page, "?")
        keys = page.get_by_role("dialog", name="Keys")
        keys.wait_for()
        assert "next panel" in keys.inner_text() and "the best of the panel" in keys.inner_text()
        press(page, "?")
        keys.wait_for(state="hidden")

        press(page, "1", "u", "2", "n", "3", "u", "1", "b")
        shows(page, "the oldest question")
        said(page, "Panel judged: on to the next one.")
        assert page.url == f"{bench.url}/judge?panel={oldest['panel']}"
        fits(page, viewport, theme)

    stored = verdicts(bench, newest["panel"])
    assert {alias: v["useful"] for alias, v in stored.items()} == {"m1": True, "m2": False, "m3": True}
    assert stored["m1"]["better_than"] == sorted([newest["calls"]["m2"], newest["calls"]["m3"]])
    assert all(v is None for v in verdicts(bench, oldest["panel"]).values())


def test_the_keys_are_said_on_the_page(bench: Gateway, browser: Browser):
    with watched_page(browser, bench.url) as watched:
        page = watched.page
        page.goto(f"{bench.url}/judge")
        page.get_by_text("No panel owes a verdict").wait_for()
        line = page.locator("#keys-line").inner_text()
        for words in (
            "1–9 go to a seat",
            "u useful",
            "n not useful",
            "b best answer",
            "j / k next / previous panel",
        ):
            assert words in line
        assert page.locator("nav a[aria-current=page]").inner_text() == "Judge"
