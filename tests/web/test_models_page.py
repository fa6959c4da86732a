"""Models: the roster by endpoint; a model put on the bench, renamed, given a role, retired and restored."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream
from tests.web.browser import PHONE, watched_page

REFUSED_IN_CONSOLE = "Failed to load resource: the server responded with a status of 400 (Bad Request)"


def model(gateway: Gateway, alias: str) -> dict[str, Any]:
    found: dict[str, Any] = gateway.api("GET", f"/api/models/{alias}", expect=200)["model"]
    return found


def said(page: Page, text: str) -> None:
    page.get_by_role("status").filter(has_text=text).wait_for()


def test_the_roster_groups_models_by_endpoint_with_their_facts(bench: Gateway, browser: Browser):
    bench.api("PATCH", "/api/models/m1", {"context_window": 128_000, "tools": True}, expect=200)
    with watched_page(browser, bench.url) as watched:
        page = watched.page
        page.goto(f"{bench.url}/models")
        group = page.get_by_role("region", name="up")
        assert group.get_by_text("3 on the bench").is_visible()
        row = group.get_by_role("row").filter(has=page.get_by_role("rowheader", name="m1", exact=True))
        cells = row.get_by_role("cell").all_inner_texts()
        assert cells[:7] == ["m1", "general", "no", "128,000", "not known", "not known", "yes"]
        assert cells[7].startswith("untested"), "an on-bench model's status is its health"


def test_a_model_is_put_on_the_bench_through_the_dialog(
    bench: Gateway, upstream: FakeUpstream, browser: Browser
):
    upstream.serve("org/m4:free")
    with watched_page(browser, bench.url) as watched:
        page = watched.page
        page.goto(f"{bench.url}/models")
        page.get_by_role("button", name="Put a model on the bench").click()
        dialog = page.get_by_role("dialog", name="Put a model on the bench")
        chosen = dialog.get_by_label("Endpoint", exact=True).input_value()
        assert chosen == "up", "the default endpoint is chosen"
        dialog.get_by_label("Served id").fill("org/m4:free")
        dialog.get_by_label("Alias").fill("m4")
        dialog.get_by_label("Role").select_option("code")
        dialog.get_by_label("Context window (tokens)").fill("32000")
        dialog.get_by_label("Sees images").select_option("Yes")
        dialog.get_by_role("button", name="Put it on the bench").click()
        said(page, "m4 is on the bench.")
        assert page.get_by_role("rowheader", name="m4", exact=True).is_visible()
    added = model(bench, "m4")
    assert (added["served_id"], added["endpoint"], added["role"]) == ("org/m4:free", "up", "code")
    assert (added["context_window"], added["vision"], added["tools"]) == (32_000, True, None)


def test_an_id_the_endpoint_does_not_list_is_refused_in_the_dialog_until_marked_unlisted(
    bench: Gateway, browser: Browser
):
    with watched_page(browser, bench.url) as watched:
        page = watched.page
        page.goto(f"{bench.url}/models")
        page.get_by_role("button", name="Put a model on the bench").click()
        dialog = page.get_by_role("dialog", name="Put a model on the bench")
        dialog.get_by_label("Served id").fill("m4")
        dialog.get_by_role("button", name="Put it on the bench").click()
        refusal = dialog.get_by_text("does not serve `m4`")
        refusal.wait_for()
        assert "did you mean" in refusal.inner_text() and "unlisted" in refusal.inner_text()
        watched.errors.remove(REFUSED_IN_CONSOLE)  # the browser logs the refused POST
        dialog.get_by_label("Unlisted").check()
        dialog.get_by_role("button", name="Put it on the bench").click()
        said(page, "m4 is on the bench.")
    assert model(bench, "m4")["served_id"] == "m4"


def test_a_model_is_renamed_and_given_a_role_in_its_dialog(bench: Gateway, browser: Browser):
    with watched_page(browser, bench.url) as watched:
        page = watched.page
        page.goto(f"{bench.url}/models")
        page.get_by_role("button", name="Edit m1", exact=True).click()
        dialog = page.get_by_role("dialog", name="Edit a model")
        assert dialog.get_by_label("Alias").input_value() == "m1"
        dialog.get_by_label("Alias").fill("fast-one")
        dialog.get_by_label("Role").select_option("light")
        dialog.get_by_label("Ad hoc").check()
        dialog.get_by_label("Max output (tokens)").fill("4096")
        dialog.get_by_role("button", name="Save").click()
        said(page, "fast-one saved.")
    renamed = model(bench, "fast-one")
    assert (renamed["role"], renamed["ad_hoc"], renamed["max_output"]) == ("light", True, 4096)
    assert renamed["former_aliases"] == ["m1"]
    assert "fast-one" in bench.api("GET", "/api/collections/core", expect=200)["collection"]["members"]


def test_a_model_is_retired_with_a_reason_and_restored(bench: Gateway, browser: Browser):
    with watched_page(browser, bench.url) as watched:
        page = watched.page
        page.goto(f"{bench.url}/models")
        page.get_by_role("button", name="Edit m2", exact=True).click()
        page.get_by_role("dialog", name="Edit a model").get_by_role("button", name="Retire…").click()
        confirm = page.get_by_role("dialog", name="Retire a model")
        assert "Retire m2?" in confirm.inner_text()
        confirm.get_by_label("Reason (optional)").fill("too slow for reviews")
        confirm.get_by_role("button", name="Retire", exact=True).click()
        said(page, "m2 retired.")
        assert model(bench, "m2")["retired_why"] == "too slow for reviews"
        retired_row = page.get_by_role("row").filter(has=page.get_by_role("rowheader", name="m2", exact=True))
        assert not retired_row.is_visible(), "retired models are hidden until asked for"

        page.get_by_label("Show retired").check()
        assert "too slow for reviews" in retired_row.inner_text()
        page.get_by_role("button", name="Edit m2", exact=True).click()
        page.get_by_role("dialog", name="Edit a model").get_by_role("button", name="Restore").click()
        said(page, "m2 is back on the bench.")
    assert model(bench, "m2")["retired_at"] is None
    assert "m2" in bench.api("GET", "/api/collections/core", expect=200)["collection"]["members"]


def test_the_roster_fits_a_phone_in_the_dark_theme(bench: Gateway, upstream: FakeUpstream, browser: Browser):
    bench.api("POST", "/api/models/m3/retire", {"why": "a long reason " * 8}, expect=200)
    with watched_page(browser, bench.url, viewport=PHONE, theme="dark") as watched:
        page = watched.page
        page.goto(f"{bench.url}/models")
        page.get_by_label("Show retired").check()
        assert page.evaluate("document.documentElement.dataset.theme") == "dark"
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        page.get_by_role("button", name="Put a model on the bench").click()
        dialog = page.get_by_role("dialog", name="Put a model on the bench")
        assert dialog.get_by_label("Served id").is_visible()
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


def a_dozen_models_with_long_served_ids(gateway: Gateway) -> None:
    """m1–m3 and nine more served by ids as long as real catalogs' (org/name-size-variant:tier)."""
    for n in range(9):
        gateway.add_model(
            f"model-{n}",
            served_id=f"organisation-name/very-long-model-name-{n}-instruct-2507-fp8:free",
            unlisted=True,
        )


@pytest.mark.parametrize("width", [1280, 1400])
def test_every_edit_button_is_in_view_without_scrolling_sideways(
    bench: Gateway, browser: Browser, width: int
):
    a_dozen_models_with_long_served_ids(bench)
    with watched_page(browser, bench.url, viewport={"width": width, "height": 900}) as watched:
        page = watched.page
        page.goto(f"{bench.url}/models")
        edits = page.locator("#roster").get_by_role("button", name="Edit")
        assert edits.count() == 12
        for n in range(12):
            edit = edits.nth(n)
            edit.evaluate("button => window.scrollTo(0, scrollY + button.getBoundingClientRect().top - 300)")
            box = edit.bounding_box()
            assert box is not None, f"Edit #{n + 1} is not shown"
            assert box["x"] >= 0 and box["x"] + box["width"] <= width, f"Edit #{n + 1} at {box}"
            assert box["y"] >= 0 and box["y"] + box["height"] <= 900
        wraps = page.locator("#roster .table-wrap")
        assert wraps.evaluate_all("all => all.every(wrap => wrap.scrollWidth <= wrap.clientWidth)"), (
            "the roster scrolls sideways"
        )
