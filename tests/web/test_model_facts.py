"""The model dialog shows each of the model's facts with its source, from `GET /api/models/{alias}/facts`."""

from __future__ import annotations

from playwright.sync_api import Browser, Locator

from tests.catalog.loopback import catalog_server, point_catalogs_at, refresh
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream
from tests.web.browser import watched_page


def fact_row(facts: Locator, name: str) -> list[str]:
    row = facts.locator("tr").filter(has=facts.page.get_by_role("rowheader", name=name, exact=True))
    return row.get_by_role("cell").all_inner_texts()


def test_the_dialog_shows_facts_from_the_public_catalog_and_what_an_override_replaced(
    gateway: Gateway, upstream: FakeUpstream, browser: Browser
):
    gateway.add_endpoint("openai", upstream.url)
    upstream.serve("gpt-4o-mini")
    gateway.add_model("mini", served_id="gpt-4o-mini", endpoint="openai")
    upstream.listed(["gpt-4o-mini"])
    with catalog_server() as catalogs:
        point_catalogs_at(gateway, catalogs)
        refresh(gateway)
    gateway.api("PUT", "/api/models/mini/facts", {"max_output": 4096}, expect=200)
    with watched_page(browser, gateway.url) as watched:
        page = watched.page
        page.goto(f"{gateway.url}/models")
        page.get_by_role("button", name="Edit mini", exact=True).click()
        dialog = page.get_by_role("dialog", name="Edit a model")
        facts = dialog.get_by_role("table", name="Facts and their sources")
        facts.wait_for()
        value, source = fact_row(facts, "Context window")
        assert value == "128,000 tokens" and source.startswith("models.dev")
        value, source = fact_row(facts, "Max output")
        assert value == "4,096 tokens" and source.startswith("set by hand")
        assert "replaces 16,384 tokens from models.dev" in source
        value, source = fact_row(facts, "Price")
        assert value == "$0.15 in / $0.6 out per million tokens" and source.startswith("models.dev")
        assert fact_row(facts, "Rate limits") == ["not known", "no source knows it"]
        assert "Matched in the public catalogs as models.dev" in dialog.locator("#facts-said").inner_text()
    shown = {f["name"]: f for f in gateway.api("GET", "/api/models/mini/facts")["facts"]}
    assert (shown["context_window"]["source"], shown["max_output"]["source"]) == ("models.dev", "override")


def test_another_models_dialog_shows_its_own_facts(
    gateway: Gateway, upstream: FakeUpstream, browser: Browser
):
    gateway.add_endpoint("up", upstream.url)
    upstream.serve("m1", "m2")
    gateway.add_model("m1", context_window=8_192)
    gateway.add_model("m2")
    with watched_page(browser, gateway.url) as watched:
        page = watched.page
        page.goto(f"{gateway.url}/models")
        dialog = page.get_by_role("dialog", name="Edit a model")
        facts = dialog.get_by_role("table", name="Facts and their sources")
        page.get_by_role("button", name="Edit m1", exact=True).click()
        facts.wait_for()
        assert fact_row(facts, "Context window") == [
            "8,192 tokens",
            "set by hand\nset on the model by a person",
        ]
        dialog.get_by_role("button", name="Cancel").click()
        page.get_by_role("button", name="Edit m2", exact=True).click()
        dialog.locator("#facts-said").filter(has_text="Not found in the public catalogs").wait_for()
        assert fact_row(facts, "Context window") == ["not known", "no source knows it"]
