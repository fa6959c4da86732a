"""Health chips: each model's status in words on Models and At a glance, as `/api/health` gives it."""

from __future__ import annotations

import re

from playwright.sync_api import Browser, Locator, Page, expect

from tests.http.helpers import ask, hello
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream
from tests.web.browser import watched_page


def health_labels(gateway: Gateway) -> dict[str, str]:
    return {m["alias"]: m["label"] for m in gateway.api("GET", "/api/health", expect=200)["models"]}


def chip_of(page: Page, alias: str) -> Locator:
    row = page.locator("tr").filter(has=page.get_by_role("rowheader", name=alias, exact=True))
    return row.locator(".chip.health")


def arrange_mixed_health(bench: Gateway, upstream: FakeUpstream) -> None:
    """m1 answers, m2 is rate limited, m3 is not there, m4 was never called."""
    upstream.behave("m2", status=429, error_message="Rate limit reached")
    upstream.behave("m3", status=404, error_message="The model `m3` does not exist")
    upstream.serve("m4")
    bench.add_model("m4")
    ask(bench, hello())


def test_the_models_page_shows_each_models_health_as_a_chip_with_words(
    bench: Gateway, upstream: FakeUpstream, browser: Browser
):
    arrange_mixed_health(bench, upstream)
    expected = {"m1": "healthy", "m2": "throttled", "m3": "not found", "m4": "untested"}
    assert health_labels(bench) == expected
    with watched_page(browser, bench.url) as watched:
        page = watched.page
        page.goto(f"{bench.url}/models")
        shown = {alias: chip_of(page, alias).inner_text() for alias in expected}
        assert shown == expected
        tones = {alias: chip_of(page, alias).get_attribute("class") for alias in expected}
        assert "ok" in tones["m1"].split() and "error" in tones["m3"].split()
        assert "empty" in tones["m2"].split() and "skipped" in tones["m4"].split()
        expect(chip_of(page, "m3")).to_have_accessible_description(
            re.compile("^the endpoint says the model is not there on its last panel call")
        )


def test_check_it_now_probes_the_model_and_its_chip_follows(
    bench: Gateway, upstream: FakeUpstream, browser: Browser
):
    upstream.behave("m3", status=404, error_message="The model `m3` does not exist", fail_times=1)
    ask(bench, hello())
    with watched_page(browser, bench.url) as watched:
        page = watched.page
        page.goto(f"{bench.url}/models")
        page.get_by_role("button", name="Edit m3", exact=True).click()
        dialog = page.get_by_role("dialog", name="Edit a model")
        assert dialog.locator("#model-health .chip").inner_text() == "not found"
        assert "the endpoint says the model is not there" in dialog.locator("#model-health").inner_text()
        dialog.get_by_role("button", name="Check it now").click()
        page.get_by_role("status").filter(has_text="Checked").wait_for()
        assert chip_of(page, "m3").inner_text() == "healthy"
    (seat, probe) = upstream.requests_for("m3")
    assert probe.body["messages"] != seat.body["messages"], "the probe is its own one-word question"
    assert health_labels(bench)["m3"] == "healthy"


def test_at_a_glance_lists_the_bench_with_chips_and_counts(
    bench: Gateway, upstream: FakeUpstream, browser: Browser
):
    arrange_mixed_health(bench, upstream)
    upstream.serve("painter")
    bench.add_model("painter", role="image")
    with watched_page(browser, bench.url) as watched:
        page = watched.page
        page.goto(bench.url)
        assert page.title() == "At a glance · panelgate"
        roster = page.get_by_role("region", name="The bench")
        assert chip_of(page, "m2").inner_text() == "throttled"
        assert chip_of(page, "m4").inner_text() == "untested"
        counts = roster.get_by_label("Models by status").locator(".chip").all_inner_texts()
        assert sorted(counts) == ["1 healthy", "1 not found", "1 throttled", "1 untested"]
        painter = page.locator("tr").filter(has=page.get_by_role("rowheader", name="painter", exact=True))
        assert "not checked: an image model is not asked to chat" in painter.inner_text()
        roster.get_by_role("link", name="m3", exact=True).click()
        dialog = page.get_by_role("dialog", name="Edit a model")
        dialog.wait_for()
        assert dialog.get_by_label("Alias").input_value() == "m3"
