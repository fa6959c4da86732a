"""Endpoints: added through the dialog after the listing test, a key changed but never shown, what an
endpoint serves put on the bench, removal refused while models are on the bench, the default moved."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Browser, Locator, Page

from tests.http.helpers import ask, hello
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream
from tests.web.browser import PHONE, watched_page

FIRST_KEY = "sk-first-key-5f1c2a9e77"
NEW_KEY = "sk-changed-key-0b8d41c3e2"
REFUSED = "Failed to load resource: the server responded with a status of {status} ({reason})"


def endpoint(gateway: Gateway, name: str) -> dict[str, Any]:
    found = [e for e in gateway.api("GET", "/api/endpoints", expect=200)["endpoints"] if e["name"] == name]
    assert len(found) == 1, f"endpoint {name} is stored once"
    shown: dict[str, Any] = found[0]
    return shown


def said(page: Page, text: str) -> None:
    page.get_by_role("status").filter(has_text=text).wait_for()


def card(page: Page, name: str) -> Locator:
    return page.get_by_role("region", name=name, exact=True)


def test_an_endpoint_added_in_the_dialog_is_stored_with_its_key_kept_out_of_sight(
    gateway: Gateway, upstream: FakeUpstream, browser: Browser
):
    upstream.listed(["m1", "m2"])
    upstream.require_key = FIRST_KEY
    with watched_page(browser, gateway.url) as watched:
        page = watched.page
        page.goto(f"{gateway.url}/endpoints")
        page.get_by_role("button", name="Add endpoint").click()
        dialog = page.get_by_role("dialog", name="Add an endpoint")
        dialog.get_by_label("Name").fill("up")
        dialog.get_by_label("Base URL").fill(upstream.url)
        dialog.get_by_label("Kind").select_option("aggregator")
        key = dialog.get_by_label("Key")
        assert key.get_attribute("type") == "password" and key.get_attribute("autocomplete") == "off"
        key.fill(FIRST_KEY)
        dialog.get_by_role("button", name="Test and add").click()
        said(page, "Endpoint up added: it lists 2 models.")
        assert card(page, "up").get_by_text("key set").is_visible()
        assert FIRST_KEY not in page.content()
    stored = endpoint(gateway, "up")
    assert (stored["base_url"], stored["kind"], stored["key"], stored["is_default"]) == (
        upstream.url,
        "aggregator",
        "file",
        True,
    )


def test_a_base_url_that_lists_no_models_is_refused_in_the_dialog(
    gateway: Gateway, upstream: FakeUpstream, browser: Browser
):
    with watched_page(browser, gateway.url) as watched:
        page = watched.page
        page.goto(f"{gateway.url}/endpoints")
        page.get_by_role("button", name="Add endpoint").click()
        dialog = page.get_by_role("dialog", name="Add an endpoint")
        dialog.get_by_label("Name").fill("up")
        dialog.get_by_label("Base URL").fill(f"{upstream.url}/nowhere")
        dialog.get_by_role("button", name="Test and add").click()
        refusal = dialog.get_by_role("alert")
        refusal.filter(has_text="did not answer as a model listing").wait_for()
        assert "check the base URL" in refusal.inner_text() and dialog.is_visible()
        watched.errors.remove(REFUSED.format(status=400, reason="Bad Request"))
    assert gateway.api("GET", "/api/endpoints", expect=200)["endpoints"] == []


def test_a_changed_key_is_tested_then_sent_upstream_and_never_shown(
    bench: Gateway, upstream: FakeUpstream, browser: Browser
):
    upstream.require_key = NEW_KEY
    with watched_page(browser, bench.url) as watched:
        page = watched.page
        page.goto(f"{bench.url}/endpoints")
        card(page, "up").get_by_role("button", name="Change key").click()
        dialog = page.get_by_role("dialog", name="Change the key")
        field = dialog.get_by_label("New key")
        assert field.input_value() == "" and field.get_attribute("type") == "password"
        field.fill("sk-a-typo")
        dialog.get_by_role("button", name="Save key").click()
        dialog.get_by_role("alert").filter(has_text="did not answer as a model listing").wait_for()
        watched.errors.remove(REFUSED.format(status=400, reason="Bad Request"))

        field.fill(NEW_KEY)
        dialog.get_by_role("button", name="Save key").click()
        said(page, "Key changed.")
        assert card(page, "up").get_by_text("key set").is_visible()
        assert NEW_KEY not in page.content()
        card(page, "up").get_by_role("button", name="Change key").click()
        assert dialog.get_by_label("New key").input_value() == "", "the key field is never filled in"
    assert ask(bench, hello()).json()["bench"]["seats"][0]["status"] == "ok"
    assert upstream.requests_for("m1")[-1].headers["authorization"] == f"Bearer {NEW_KEY}"
    assert NEW_KEY not in str(bench.api("GET", "/api/endpoints")) + str(bench.api("GET", "/api/audit"))


def test_what_an_endpoint_serves_off_the_bench_is_put_on_it(
    bench: Gateway, upstream: FakeUpstream, browser: Browser
):
    upstream.listed(["m1", "m2", "m3", "org/m4:free"])
    with watched_page(browser, bench.url) as watched:
        page = watched.page
        page.goto(f"{bench.url}/endpoints")
        card(page, "up").get_by_role("button", name="What it serves").click()
        served = card(page, "up").get_by_role("table")
        page.get_by_text("4 listed, 1 not on the bench").wait_for()
        assert "on the bench as m1" in served.get_by_role("row").filter(has_text="m1").inner_text()
        served.get_by_role("button", name="Add org/m4:free to bench").click()

        dialog = page.get_by_role("dialog", name="Put a model on the bench")
        assert dialog.get_by_label("Endpoint", exact=True).input_value() == "up"
        assert dialog.get_by_label("Served id").input_value() == "org/m4:free"
        assert dialog.get_by_label("Alias").input_value() == "m4-free"
        dialog.get_by_role("button", name="Put it on the bench").click()
        said(page, "m4-free is on the bench.")
        assert "m4-free" in card(page, "up").inner_text()
    added = bench.api("GET", "/api/models/m4-free", expect=200)["model"]
    assert (added["served_id"], added["endpoint"]) == ("org/m4:free", "up")


def test_removing_an_endpoint_with_models_on_the_bench_shows_the_refusal(
    bench: Gateway, upstream: FakeUpstream, browser: Browser
):
    with watched_page(browser, bench.url) as watched:
        page = watched.page
        page.goto(f"{bench.url}/endpoints")
        page.once("dialog", lambda confirm: confirm.accept())
        card(page, "up").get_by_role("button", name="Remove").click()
        said(page, "still serves m1, m2, m3; retire those models first")
        watched.errors.remove(REFUSED.format(status=409, reason="Conflict"))
    assert endpoint(bench, "up")["is_default"] is True


def test_another_endpoint_is_made_the_default(bench: Gateway, upstream: FakeUpstream, browser: Browser):
    bench.add_endpoint("other", upstream.url)
    with watched_page(browser, bench.url) as watched:
        page = watched.page
        page.goto(f"{bench.url}/endpoints")
        assert card(page, "up").get_by_role("button", name="Make default").count() == 0
        card(page, "other").get_by_role("button", name="Make default").click()
        said(page, "other is the default endpoint.")
        assert card(page, "other").get_by_text("default", exact=True).is_visible()
    assert endpoint(bench, "other")["is_default"] and not endpoint(bench, "up")["is_default"]


def test_the_endpoints_fit_a_phone_in_the_dark_theme(
    bench: Gateway, upstream: FakeUpstream, browser: Browser
):
    upstream.listed(["m1", *(f"vendor/a-rather-long-model-name-{n}:free" for n in range(14))])
    with watched_page(browser, bench.url, viewport=PHONE, theme="dark") as watched:
        page = watched.page
        page.goto(f"{bench.url}/endpoints")
        assert page.evaluate("document.documentElement.dataset.theme") == "dark"
        card(page, "up").get_by_role("button", name="What it serves").click()
        page.get_by_label("Find in what up serves").fill("name-13")
        rows = card(page, "up").get_by_role("table").locator("tbody tr:visible")
        assert rows.count() == 1 and "name-13" in rows.inner_text()
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
