"""Quotas: what each provider says is left after a call, who is resting, limits set by hand, empty states."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from playwright.sync_api import Browser, Locator, Page

from tests.http.helpers import ask, hello
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream
from tests.web.browser import PHONE, watched_page

OPENAI_HEADERS = {
    "x-ratelimit-limit-requests": "60",
    "x-ratelimit-remaining-requests": "57",
    "x-ratelimit-reset-requests": "6m0s",
    "x-ratelimit-limit-tokens": "30000",
    "x-ratelimit-remaining-tokens": "29500",
    "x-ratelimit-reset-tokens": "1m30s",
}
REFUSED_IN_CONSOLE = "Failed to load resource: the server responded with a status of 400 (Bad Request)"
"""What Chromium logs for the refusal a test provokes on purpose (any other console error still fails)."""
READER_ZONE = "Asia/Kolkata"
"""A zone half an hour off any whole-hour zone, so a time shown in UTC (or the server's zone) is caught."""


def solo(bench: Gateway) -> None:
    """Collection `solo`: m1 alone."""
    bench.save_collection("solo", ["m1"])
    bench.gateway_settings(max_calls=1, max_explorers=0, seat_deadline_s=4)


def in_zone(page: Page, zone: str) -> None:
    """Show the page as a reader in `zone` sees it (Chromium's own time-zone override)."""
    page.context.new_cdp_session(page).send("Emulation.setTimezoneOverride", {"timezoneId": zone})


def model_row(page: Page, connection: str, name: str) -> Locator:
    region = page.get_by_role("region", name=connection, exact=True)
    return region.locator("table.models tr").filter(
        has=page.get_by_role("rowheader", name=re.compile(rf"^{name}\b"))
    )


def cells(row: Locator) -> list[str]:
    return row.get_by_role("cell").all_inner_texts()


def as_shown(moment: datetime) -> str:
    """`moment` as the page writes a close one in READER_ZONE: its clock time, dated when not today there."""
    local = moment.astimezone(ZoneInfo(READER_ZONE))
    time = local.strftime("%H:%M:%S")
    if local.date() == datetime.now(ZoneInfo(READER_ZONE)).date():
        return time
    return f"{local.date().isoformat()} {time}"


def stated(bench: Gateway, measure: str) -> dict:
    (row,) = [s for s in bench.api("GET", "/api/limits")["stated"] if s["measure"] == measure]
    return row


def test_after_a_call_the_page_shows_what_the_provider_says_is_left_and_when_it_resets(
    bench: Gateway, upstream: FakeUpstream, browser: Browser
):
    solo(bench)
    upstream.behave("m1", headers=OPENAI_HEADERS)
    assert ask(bench, hello("bench/solo")).json()["bench"]["seats"][0]["status"] == "ok"
    resets_at = datetime.fromisoformat(stated(bench, "requests")["resets_at"])
    with watched_page(browser, bench.url) as watched:
        page = watched.page
        in_zone(page, READER_ZONE)
        page.goto(f"{bench.url}/quotas")
        requests, tokens, day, month = cells(model_row(page, "up", "m1"))
        local = as_shown(resets_at)
        assert requests.startswith("57 of 60 left")
        assert re.search(rf"resets {local} \(in [56] min\)", requests), requests
        assert tokens.startswith("29,500 of 30,000 left") and re.search(
            r"resets \S+ \(in \d+ (s|min)\)", tokens
        )
        assert day.startswith("1 call") and month.startswith("1 call")
        untouched = cells(model_row(page, "up", "m2"))
        assert untouched == ["not stated", "not stated", "none", "none"]
        summary = page.get_by_role("region", name="up", exact=True).locator(".sent-summary").inner_text()
        assert "Sent in the last 24 hours: 1 call" in summary
        assert "No model is resting" in page.locator("#resting").inner_text()


def test_a_model_told_to_wait_is_listed_as_resting_until_then(
    bench: Gateway, upstream: FakeUpstream, browser: Browser
):
    solo(bench)
    upstream.behave("m1", status=429, retry_after=600, fail_times=1, error_message="Rate limit reached")
    seat = ask(bench, hello("bench/solo")).json()["bench"]["seats"][0]
    assert seat["status"] == "error"
    until = datetime.fromisoformat(stated(bench, "requests")["retry_at"])
    with watched_page(browser, bench.url) as watched:
        page = watched.page
        in_zone(page, READER_ZONE)
        page.goto(f"{bench.url}/quotas")
        resting = page.locator("#resting li").all_inner_texts()
        local = as_shown(until)
        assert len(resting) == 1, resting
        assert re.match(
            rf"resting m1 on up until {local} \(in (9|10) min\): the provider asked to wait", resting[0]
        )
        assert "resting until" in model_row(page, "up", "m1").inner_text()


def test_a_used_up_window_rests_the_model_until_it_resets(
    bench: Gateway, upstream: FakeUpstream, browser: Browser
):
    solo(bench)
    reset = (datetime.now(UTC) + timedelta(minutes=30)).replace(microsecond=0)
    upstream.behave(
        "m1",
        headers={
            "anthropic-ratelimit-requests-limit": "50",
            "anthropic-ratelimit-requests-remaining": "0",
            "anthropic-ratelimit-requests-reset": reset.isoformat(),
        },
    )
    ask(bench, hello("bench/solo"))
    with watched_page(browser, bench.url) as watched:
        page = watched.page
        page.goto(f"{bench.url}/quotas")
        (resting,) = page.locator("#resting li").all_inner_texts()
        assert "m1 on up until" in resting and "its requests are used up" in resting
        requests = cells(model_row(page, "up", "m1"))[0]
        assert requests.startswith("0 of 50 left")


def test_a_limit_set_on_the_page_counts_calls_and_can_be_removed(
    bench: Gateway, upstream: FakeUpstream, browser: Browser
):
    solo(bench)
    with watched_page(browser, bench.url) as watched:
        page = watched.page
        page.goto(f"{bench.url}/quotas")
        assert "No limits set by hand on up" in page.get_by_role("region", name="up", exact=True).inner_text()
        page.get_by_role("button", name="Set a limit on up").click()
        dialog = page.get_by_role("dialog", name="Set a limit")
        assert "On up." in dialog.inner_text()
        dialog.get_by_label("Applies to").select_option("m1")
        dialog.get_by_label("At most").fill("2")
        dialog.get_by_label("Of").select_option("requests")
        dialog.get_by_label("Per").select_option("minute")
        dialog.get_by_role("button", name="Set limit").click()
        page.get_by_role("status").filter(has_text="Limit set.").wait_for()
        (rule,) = bench.api("GET", "/api/limits")["rules"]
        assert (rule["endpoint"], rule["served_id"], rule["most"], rule["window"]) == (
            "up",
            "m1",
            2,
            "minute",
        )

        ask(bench, hello("bench/solo"))
        page.reload()
        limits = page.get_by_role("table", name="Limits set by hand")
        assert cells(limits.locator("tbody tr"))[:2] == ["2 requests a minute", "1 of 2"]

        page.once("dialog", lambda confirm: confirm.accept())
        limits.get_by_role("button", name="Remove").click()
        page.get_by_role("status").filter(has_text="Limit removed.").wait_for()
    assert bench.api("GET", "/api/limits")["rules"] == []


def test_a_limit_refused_by_the_api_says_why_in_the_dialog(bench: Gateway, browser: Browser):
    with watched_page(browser, bench.url) as watched:
        page = watched.page
        page.goto(f"{bench.url}/quotas")
        page.get_by_role("button", name="Set a limit on up").click()
        dialog = page.get_by_role("dialog", name="Set a limit")
        dialog.get_by_label("At most").fill("0")
        dialog.locator("#limit-most").evaluate("input => input.removeAttribute('min')")
        dialog.get_by_role("button", name="Set limit").click()
        assert "`most` must be a whole number of at least 1" in dialog.get_by_role("alert").inner_text()
        watched.errors.remove(REFUSED_IN_CONSOLE)
    assert bench.api("GET", "/api/limits")["rules"] == []


def test_empty_states_say_what_to_do(gateway: Gateway, upstream: FakeUpstream, browser: Browser):
    with watched_page(browser, gateway.url) as watched:
        page = watched.page
        page.goto(f"{gateway.url}/quotas")
        assert "No endpoints yet: add an endpoint" in page.locator("#no-endpoints").inner_text()
        gateway.add_endpoint("up", upstream.url)
        page.reload()
        region = page.get_by_role("region", name="up", exact=True)
        assert "Nothing on the bench through up yet" in region.inner_text()
        upstream.serve("m1")
        gateway.add_model("m1")
        page.reload()
        text = region.inner_text()
        assert "up has stated no limits yet" in text and "after the first call" in text
        assert "No limits set by hand on up" in text


def test_the_page_fits_a_phone_in_the_dark_theme(bench: Gateway, upstream: FakeUpstream, browser: Browser):
    solo(bench)
    upstream.behave("m1", headers=OPENAI_HEADERS)
    ask(bench, hello("bench/solo"))
    bench.api(
        "POST",
        "/api/limits",
        {"endpoint": "up", "measure": "tokens", "window": "day", "most": 100_000},
        expect=201,
    )
    with watched_page(browser, bench.url, viewport=PHONE, theme="dark") as watched:
        page = watched.page
        page.goto(f"{bench.url}/quotas")
        assert "all its models together" in page.get_by_role("table", name="Limits set by hand").inner_text()
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
