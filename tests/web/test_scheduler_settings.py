"""The scheduler on Settings: its mode and each job's switch change through the page and persist."""

from __future__ import annotations

from playwright.sync_api import Browser, Locator, Page

from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream
from tests.web.browser import PHONE, watched_page


def scheduler(gateway: Gateway) -> dict:
    found: dict = gateway.api("GET", "/api/scheduler", expect=200)
    return found


def job(gateway: Gateway, name: str) -> dict:
    (found,) = [j for j in scheduler(gateway)["jobs"] if j["name"] == name]
    return found


def job_row(page: Page, name: str) -> Locator:
    return page.locator("#jobs tbody tr").filter(has=page.locator(f"th#job-{name}"))


def said(page: Page, text: str) -> None:
    page.get_by_role("status").filter(has_text=text).wait_for()


def test_the_mode_chosen_on_the_page_is_kept(gateway: Gateway, browser: Browser):
    assert scheduler(gateway)["mode"] == "off"
    with watched_page(browser, gateway.url) as watched:
        page = watched.page
        page.goto(f"{gateway.url}/settings")
        section = page.get_by_role("region", name="Scheduler")
        assert section.get_by_label("Off").is_checked()
        assert "not while the scheduler is off" in job_row(page, "daily-probe").inner_text()
        section.get_by_label("Log only").check()
        section.get_by_role("button", name="Save mode").click()
        said(page, "Scheduler mode saved.")
        assert section.get_by_label("Log only").is_checked()
        assert "not while" not in job_row(page, "daily-probe").inner_text(), "a next run is shown"
        assert "This gateway process runs the jobs" in section.inner_text()
    shown = scheduler(gateway)
    assert shown["mode"] == "log-only" and shown["runner"]["here"] is True
    assert job(gateway, "daily-probe")["next_due"] is not None


def test_a_job_switched_off_on_the_page_stays_off(gateway: Gateway, browser: Browser):
    gateway.api("PATCH", "/api/scheduler", {"mode": "run"}, expect=200)
    with watched_page(browser, gateway.url) as watched:
        page = watched.page
        page.goto(f"{gateway.url}/settings")
        row = job_row(page, "speed-test")
        assert row.locator(".chip").first.inner_text() == "on"
        row.get_by_role("button", name="Switch off").click()
        said(page, "speed-test switched off.")
        assert row.locator(".chip").first.inner_text() == "off"
        assert "switched off" in row.inner_text()
        assert job_row(page, "daily-probe").locator(".chip").first.inner_text() == "on", "only that job"
    assert job(gateway, "speed-test")["enabled"] is False
    assert job(gateway, "speed-test")["next_due"] is None
    assert scheduler(gateway)["mode"] == "run", "switching a job leaves the mode alone"


def test_run_now_shows_the_last_run_and_its_result(bench: Gateway, upstream: FakeUpstream, browser: Browser):
    upstream.listed(["m1", "m2", "m3"])
    with watched_page(browser, bench.url) as watched:
        page = watched.page
        page.goto(f"{bench.url}/settings")
        row = job_row(page, "daily-probe")
        assert "never" in row.inner_text()
        page.once("dialog", lambda confirm: confirm.accept())
        row.get_by_role("button", name="Run now").click()
        said(page, "daily-probe ran")
        last = row.locator("td.last-run").inner_text()
        assert last.startswith("ok") and "probed: 3 model(s); 3 answered" in last and "(run by local)" in last
    assert sorted(r.model for r in upstream.requests if r.path.endswith("/chat/completions")) == [
        "m1",
        "m2",
        "m3",
    ]


def test_the_scheduler_fits_a_phone_in_the_dark_theme(gateway: Gateway, browser: Browser):
    with watched_page(browser, gateway.url, viewport=PHONE, theme="dark") as watched:
        page = watched.page
        page.goto(f"{gateway.url}/settings#scheduler")
        assert page.get_by_role("table", name="Scheduled jobs").is_visible()
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
