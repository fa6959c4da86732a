"""Collections: the editor, deleting, how to ask one, the gateway limits, the way to the recent panels."""

from __future__ import annotations

from playwright.sync_api import Browser, Dialog, Page

from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream
from tests.web.browser import PHONE, watched_page


def stored(gateway: Gateway, name: str) -> dict:
    return gateway.api("GET", f"/api/collections/{name}", expect=200)["collection"]


def collection_row(page: Page, name: str):
    return page.locator("#collections tbody tr").filter(has=page.get_by_text(f"bench/{name}", exact=True))


def test_the_editor_makes_a_collection_of_members_found_by_search(
    bench: Gateway, upstream: FakeUpstream, browser: Browser
):
    upstream.serve("org/big-model-v2", "org/old-model")
    bench.add_model("big", served_id="org/big-model-v2")
    bench.add_model("old", served_id="org/old-model")
    bench.api("POST", "/api/models/old/retire", {"why": "too slow"}, expect=200)
    with watched_page(browser, bench.url) as watched:
        page = watched.page
        page.goto(f"{bench.url}/collections")
        page.get_by_role("button", name="New collection").click()
        editor = page.get_by_role("dialog", name="New collection")
        editor.get_by_label("Name").fill("pair")
        search = editor.get_by_label("Find a model")
        search.fill("big-model")
        assert not editor.get_by_role("checkbox", name="m1").is_visible()
        editor.get_by_role("checkbox", name="big").check()
        search.fill("m2")
        editor.get_by_role("checkbox", name="m2").check()
        search.fill("old-model")
        assert editor.get_by_role("checkbox").filter(visible=True).count() == 0, "a retired model is offered"
        assert editor.locator("#chosen-members").inner_text().split() == ["big", "m2"]
        editor.get_by_label("Shape").select_option("code")
        editor.get_by_label("Reply").select_option("merged")
        editor.get_by_label("Merger").select_option("m2")
        editor.get_by_label("Description").fill("a big model and a small one")
        editor.get_by_label("Tags").fill("code, two")
        editor.get_by_role("button", name="Save").click()
        collection_row(page, "pair").wait_for()
        assert page.locator("#status").inner_text() == "Collection bench/pair saved."
    saved = stored(bench, "pair")
    assert saved["members"] == ["big", "m2"] and saved["shape"] == "code"
    assert (saved["reply"], saved["merger"]) == ("merged", "m2")
    assert saved["description"] == "a big model and a small one" and saved["tags"] == ["code", "two"]


def test_an_edit_sends_only_the_fields_changed_in_it(bench: Gateway, browser: Browser):
    fields = {"shape": "code", "reply": "route", "shadows": 1, "merger": "m2", "tags": ["a"]}
    bench.save_collection("routed", ["m1", "m2"], description="old", **fields)
    with watched_page(browser, bench.url) as watched:
        page = watched.page
        page.goto(f"{bench.url}/collections")
        collection_row(page, "routed").get_by_role("button", name="Edit").click()
        editor = page.get_by_role("dialog", name="Edit bench/routed")
        assert editor.get_by_label("Name").input_value() == "routed"
        assert editor.get_by_label("Name").get_attribute("readonly") is not None
        assert editor.get_by_label("Shadows").input_value() == "1"
        bench.api("PATCH", "/api/collections/routed", {"tags": ["changed-elsewhere"]}, expect=200)
        editor.get_by_label("Description").fill("new words")
        editor.get_by_role("button", name="Save").click()
        page.get_by_text("Collection bench/routed saved.").wait_for()
    saved = stored(bench, "routed")
    assert saved["description"] == "new words"
    assert saved["tags"] == ["changed-elsewhere"], "the edit overwrote a field it did not change"
    assert (saved["members"], saved["shape"], saved["reply"]) == (["m1", "m2"], "code", "route")
    assert (saved["shadows"], saved["merger"]) == (1, "m2")


def test_delete_asks_first_and_removes_the_collection(bench: Gateway, browser: Browser):
    asked: list[str] = []

    def answer(confirm: Dialog, accept: bool) -> None:
        asked.append(confirm.message)
        confirm.accept() if accept else confirm.dismiss()

    with watched_page(browser, bench.url) as watched:
        page = watched.page
        page.goto(f"{bench.url}/collections")
        delete = collection_row(page, "core").get_by_role("button", name="Delete")
        page.once("dialog", lambda confirm: answer(confirm, accept=False))
        delete.click()
        assert asked and "bench/core" in asked[0]
        assert collection_row(page, "core").count() == 1
        page.once("dialog", lambda confirm: answer(confirm, accept=True))
        delete.click()
        page.get_by_text("Collection bench/core deleted.").wait_for()
        assert collection_row(page, "core").count() == 0
    assert bench.api("GET", "/api/collections/core", expect=404)["error"]["message"]


def test_ask_it_shows_how_to_ask_the_chosen_collection_at_this_server(bench: Gateway, browser: Browser):
    bench.save_collection("second", ["m1"])
    with watched_page(browser, bench.url) as watched:
        page = watched.page
        page.goto(f"{bench.url}/collections#ask")
        box = page.locator("#ask")
        assert f"{bench.url}/v1/chat/completions" in box.inner_text()
        page.get_by_label("Collection to ask").select_option("second")
        shown = box.locator(".snippets:visible").inner_text()
        assert '"model": "bench/second"' in shown and 'model="bench/second"' in shown
        assert f'PANELGATE_URL={bench.url} panelgate ask second "' in shown


def test_the_gateway_limits_are_changed_from_the_page(bench: Gateway, browser: Browser):
    with watched_page(browser, bench.url) as watched:
        page = watched.page
        page.goto(f"{bench.url}/collections")
        page.get_by_role("button", name="Gateway limits").click()
        limits = page.get_by_role("dialog", name="Gateway limits")
        assert limits.get_by_label("Seats a panel has at most").input_value() == "3"
        limits.get_by_label("Explorer seats at most").fill("2")
        limits.get_by_role("button", name="Save").click()
        page.get_by_text("Gateway limits saved.").wait_for()
        assert "up to 2 of them explorers" in page.locator("#limits").inner_text()
    gateway = bench.api("GET", "/api/settings/gateway", expect=200)["gateway"]
    assert (gateway["max_calls"], gateway["max_explorers"]) == (3, 2)


def test_the_decision_model_is_chosen_and_cleared_from_the_limits_dialog(bench: Gateway, browser: Browser):
    with watched_page(browser, bench.url) as watched:
        page = watched.page
        page.goto(f"{bench.url}/collections")
        assert "shapes are decided by the shape rules" in page.locator("#limits").inner_text()
        page.get_by_role("button", name="Gateway limits").click()
        limits = page.get_by_role("dialog", name="Gateway limits")
        limits.get_by_label("Decision model").select_option("m2")
        limits.get_by_role("button", name="Save").click()
        page.locator("#limits", has_text="decided by the model m2").wait_for()
        assert bench.api("GET", "/api/settings/gateway")["gateway"]["decision_model"] == "m2"
        page.get_by_role("button", name="Gateway limits").click()
        assert limits.get_by_label("Decision model").input_value() == "m2"
        limits.get_by_label("Decision model").select_option("")
        limits.get_by_role("button", name="Save").click()
        page.locator("#limits", has_text="decided by the shape rules").wait_for()
    assert bench.api("GET", "/api/settings/gateway")["gateway"]["decision_model"] == ""


def test_the_recent_panels_are_a_link_away_on_the_gateway_page_at_phone_width_in_the_dark(
    bench: Gateway, browser: Browser
):
    with watched_page(browser, bench.url, viewport=PHONE, theme="dark") as watched:
        page = watched.page
        page.goto(f"{bench.url}/collections")
        assert page.locator("#panels").count() == 0, "the recent panels moved to the Gateway page"
        page.locator("main").get_by_role("link", name="Gateway").first.click()
        page.wait_for_url(f"{bench.url}/gateway")
        assert page.locator("h1").inner_text() == "Gateway"
        assert page.evaluate("document.documentElement.dataset.theme") == "dark"
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


def test_the_explorer_rule_and_floor_are_chosen_from_the_limits_dialog(bench: Gateway, browser: Browser):
    with watched_page(browser, bench.url) as watched:
        page = watched.page
        page.goto(f"{bench.url}/collections")
        assert (
            "chosen by the record, every model at least once in as many panels"
            in page.locator("#limits").inner_text()
        )
        page.get_by_role("button", name="Gateway limits").click()
        limits = page.get_by_role("dialog", name="Gateway limits")
        limits.get_by_label("Every model sits at least once in (panels)").fill("25")
        limits.get_by_role("button", name="Save").click()
        page.locator("#limits", has_text="every model at least once in 25 panels").wait_for()
        page.get_by_role("button", name="Gateway limits").click()
        limits.get_by_label("Explorers chosen").select_option("stalest")
        limits.get_by_role("button", name="Save").click()
        page.locator("#limits", has_text="explorers are chosen least recently seated first").wait_for()
    saved = bench.api("GET", "/api/settings/gateway", expect=200)["gateway"]
    assert (saved["explorer_rule"], saved["explorer_floor"]) == ("stalest", 25)
