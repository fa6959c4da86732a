"""Record: "Verdicts from" narrows the newest verdicts to one source, so an agent's verdicts are told
apart from a person's; a source seen for the first time joins the choices without a reload."""

from __future__ import annotations

from playwright.sync_api import Browser, Page

from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream
from tests.web.browser import watched_page
from tests.web.test_record_page import LIVE_WITHIN_MS, panel


def listed(page: Page) -> list[tuple[str, str]]:
    """(call, source) of each row of the newest verdicts, newest first."""
    rows = page.locator("#verdicts-body tbody tr").all()
    return [(row.get_attribute("data-call") or "", row.locator("td.source").inner_text()) for row in rows]


def test_a_verdict_from_claude_code_shows_under_its_source_and_not_under_another(
    bench: Gateway, upstream: FakeUpstream, browser: Browser
):
    seats = panel(bench)
    bench.api(
        "POST", "/bench/verdict", {"call": seats["m1"], "useful": True, "source": "claude-code"}, expect=200
    )
    bench.api("POST", "/bench/verdict", {"call": seats["m2"], "useful": False, "source": "codex"}, expect=200)
    bench.api("POST", "/bench/verdict", {"call": seats["m3"], "useful": True}, expect=200)
    with watched_page(browser, bench.url) as watched:
        page = watched.page
        page.goto(f"{bench.url}/record")
        choices = page.locator("#record-source option").all_inner_texts()
        assert choices == ["All sources", "claude-code", "codex"]
        assert listed(page) == [
            (seats["m3"], "not said"),
            (seats["m2"], "codex"),
            (seats["m1"], "claude-code"),
        ]

        page.select_option("#record-source", "claude-code")
        page.wait_for_url(f"{bench.url}/record?source=claude-code", timeout=LIVE_WITHIN_MS)
        page.locator("#verdicts-body tbody tr").nth(1).wait_for(state="detached", timeout=LIVE_WITHIN_MS)
        assert listed(page) == [(seats["m1"], "claude-code")]

        page.select_option("#record-source", "codex")
        page.locator(f"#verdicts-body tr[data-call='{seats['m2']}']").wait_for(timeout=LIVE_WITHIN_MS)
        assert listed(page) == [(seats["m2"], "codex")]
        page.evaluate("window.notReloaded = true")

        later = panel(bench)
        bench.api(
            "POST", "/bench/verdict", {"call": later["m1"], "useful": True, "source": "opencode"}, expect=200
        )
        page.locator("#record-source option[value='opencode']").wait_for(
            state="attached", timeout=LIVE_WITHIN_MS
        )
        assert listed(page) == [(seats["m2"], "codex")]
        assert page.evaluate("window.notReloaded") is True
    server = browser.new_context(java_script_enabled=False)
    try:
        first_paint = server.new_page()
        first_paint.goto(f"{bench.url}/record?source=claude-code")
        assert listed(first_paint) == [(seats["m1"], "claude-code")]
        assert first_paint.locator("#record-source option[selected]").inner_text() == "claude-code"
    finally:
        server.close()
