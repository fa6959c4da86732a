"""Action needed on At a glance: alerts raised by the real auto-retire run, restored, opened and dismissed."""

from __future__ import annotations

from playwright.sync_api import Browser, Locator, Page

from tests.catalog.loopback import MODELS_DEV_PATH, catalog_server, models_dev, point_catalogs_at, refresh
from tests.http.helpers import ask, hello
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream
from tests.web.browser import PHONE, watched_page


def auto_retire(gateway: Gateway) -> None:
    run = gateway.api("POST", "/api/scheduler/jobs/auto-retire/run", expect=200)["run"]
    assert run["outcome"] == "ok", run


def alerts(gateway: Gateway) -> list[dict]:
    return gateway.api("GET", "/api/alerts", expect=200)["alerts"]


def members(gateway: Gateway, collection: str = "core") -> list[str]:
    return gateway.api("GET", f"/api/collections/{collection}", expect=200)["collection"]["members"]


def action_needed(page: Page) -> Locator:
    return page.get_by_role("region", name="Action needed")


def retire_m1_on_evidence(bench: Gateway, upstream: FakeUpstream) -> None:
    """m1 says it is not there, on the panel's call and on auto-retire's confirming call."""
    upstream.behave("m1", status=404, error_message="The model `m1` does not exist")
    upstream.listed(["m1", "m2", "m3"])
    ask(bench, hello())
    auto_retire(bench)


def test_a_model_retired_automatically_is_listed_and_restored_from_the_page(
    bench: Gateway, upstream: FakeUpstream, browser: Browser
):
    retire_m1_on_evidence(bench, upstream)
    assert members(bench) == ["m2", "m3"]
    with watched_page(browser, bench.url) as watched:
        page = watched.page
        page.goto(bench.url)
        (card,) = action_needed(page).get_by_role("listitem").all()
        text = card.inner_text()
        assert "retired automatically" in text and "m1" in text and "confirmed by a second call" in text
        assert action_needed(page).get_by_role("heading").inner_text() == "Action needed (1)"
        card.get_by_role("button", name="Restore m1").click()
        page.get_by_role("status").filter(has_text="m1 is back on the bench").wait_for()
        assert "Nothing needs you" in action_needed(page).inner_text()
    assert members(bench) == ["m1", "m2", "m3"]
    assert alerts(bench) == []


def test_open_takes_the_person_to_the_retired_models_dialog(
    bench: Gateway, upstream: FakeUpstream, browser: Browser
):
    retire_m1_on_evidence(bench, upstream)
    with watched_page(browser, bench.url) as watched:
        page = watched.page
        page.goto(bench.url)
        action_needed(page).get_by_role("link", name="Open m1").click()
        dialog = page.get_by_role("dialog", name="Edit a model")
        dialog.wait_for()
        assert page.url.endswith("/models#model-m1")
        assert "Retired" in dialog.locator("#model-retired-note").inner_text()
        assert dialog.get_by_role("button", name="Restore").is_visible()
        assert page.get_by_label("Show retired").is_checked()


def test_a_refused_key_is_listed_with_its_endpoint_and_can_be_dismissed(
    bench: Gateway, upstream: FakeUpstream, browser: Browser
):
    upstream.behave("m2", status=401, error_message="Incorrect API key provided")
    upstream.listed(["m1", "m2", "m3"])
    ask(bench, hello())
    auto_retire(bench)
    (alert,) = alerts(bench)
    with watched_page(browser, bench.url) as watched:
        page = watched.page
        page.goto(bench.url)
        card = action_needed(page).get_by_role("listitem")
        assert "sign in again" in card.inner_text() and "refuses its key" in card.inner_text()
        assert (
            card.get_by_role("link", name="Open endpoint up").get_attribute("href")
            == "/endpoints#endpoint-up"
        )
        assert card.get_by_role("button", name="Restore").count() == 0, "nothing was retired"
        card.get_by_role("button", name="Dismiss").click()
        page.get_by_role("status").filter(has_text="Dismissed").wait_for()
        assert action_needed(page).get_by_role("listitem").count() == 0
    assert alerts(bench) == []
    dismissed = bench.api("POST", f"/api/alerts/{alert['id']}/dismiss", expect=200)["alert"]
    assert dismissed["dismissed_by"] == "local"


def test_a_whole_connection_down_is_one_alert_and_the_empty_list_says_what_to_do(
    bench: Gateway, upstream: FakeUpstream, browser: Browser
):
    with watched_page(browser, bench.url, viewport=PHONE, theme="dark") as watched:
        page = watched.page
        page.goto(bench.url)
        empty = action_needed(page).inner_text()
        assert "Nothing needs you" in empty and "The scheduler is off" in empty
        assert action_needed(page).get_by_role("link", name="switch it to run in Settings").is_visible()
        for alias in ("m1", "m2", "m3"):
            upstream.behave(alias, status=404, error_message="no such model")
        upstream.listed(["m1", "m2", "m3"])
        ask(bench, hello())
        auto_retire(bench)
        page.reload()
        (card,) = action_needed(page).get_by_role("listitem").all()
        assert "connection down" in card.inner_text() and "none was retired" in card.inner_text()
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


def test_a_free_model_that_turned_paid_is_listed_and_can_be_allowed(
    gateway: Gateway, upstream: FakeUpstream, browser: Browser
):
    gateway.add_endpoint("openai", upstream.url)
    upstream.serve("gpt-4o-mini")
    gateway.add_model("mini", served_id="gpt-4o-mini", endpoint="openai")
    upstream.listed(["gpt-4o-mini"])
    free = models_dev()
    free["openai"]["models"]["gpt-4o-mini"]["cost"] = {"input": 0, "output": 0}
    with catalog_server() as catalogs:
        point_catalogs_at(gateway, catalogs)
        catalogs.publish(MODELS_DEV_PATH, free)
        refresh(gateway)
        catalogs.publish(MODELS_DEV_PATH, models_dev())
        refresh(gateway)
    (alert,) = alerts(gateway)
    assert (alert["kind"], alert["subject"]) == ("paid", "mini")
    with watched_page(browser, gateway.url) as watched:
        page = watched.page
        page.goto(gateway.url)
        card = action_needed(page).get_by_role("listitem")
        assert "turned paid" in card.inner_text()
        page.once("dialog", lambda confirm: confirm.accept())
        card.get_by_role("button", name="Allow it to cost money").click()
        page.get_by_role("status").filter(has_text="mini is allowed to cost money").wait_for()
        assert action_needed(page).get_by_role("listitem").count() == 0
    assert gateway.api("GET", "/api/models/mini/facts")["paid_hold"]["state"] == "allowed"
    assert alerts(gateway) == []
