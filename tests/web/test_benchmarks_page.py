"""Benchmarks: suite results per model and per task, confidently wrong answers, speed, and empty states."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import Browser, Locator, Page

from tests.http.helpers import ask, hello
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream
from tests.web.browser import PHONE, watched_page

CLAIMS = "Claims: is this statement about the code true?"
REASONS = "\nThe attached code says so, line by line, and nothing in it points the other way."


def claim_task(bench: Gateway, verdict: str) -> str:
    """A starter claim whose right answer is `VERDICT: <verdict>`."""
    claims = bench.api("GET", "/api/suite/tasks?shape=claim", expect=200)["tasks"]
    return next(t["id"] for t in claims if t["must_find"] == [f"VERDICT: {verdict}"])


def run_suite(bench: Gateway, model: str, task: str) -> dict[str, Any]:
    found = bench.api("POST", "/api/suite/run", {"models": [model], "tasks": [task]}, expect=200)
    (answer,) = found["answers"]
    return answer


def row_of(page: Page, table: str, alias: str) -> Locator:
    return (
        page.get_by_role("table", name=table, exact=True)
        .locator("tbody tr")
        .filter(has=page.get_by_role("rowheader", name=re.compile(rf"^{alias}\b")))
    )


def cells(row: Locator) -> list[str]:
    return [" ".join(text.split()) for text in row.get_by_role("cell").all_inner_texts()]


def heat_cell(page: Page, alias: str, task: str) -> Locator:
    return row_of(page, CLAIMS, alias).locator(f'td[data-task="{task}"]')


def test_a_claim_answered_right_shows_in_the_standings_the_chart_and_the_heatmap(
    bench: Gateway, upstream: FakeUpstream, browser: Browser
):
    task = claim_task(bench, "TRUE")
    upstream.behave("m1", answer="VERDICT: TRUE" + REASONS)
    assert run_suite(bench, "m1", task)["right"] is True
    with watched_page(browser, bench.url) as watched:
        page = watched.page
        page.goto(f"{bench.url}/benchmarks")
        assert page.locator("#no-results").count() == 0
        answered, recall, invented, finding, judged, _ = cells(
            row_of(page, "Recall and invention per model", "m1")
        )
        assert (answered, recall, invented) == ("1 of 1", "100% 1 of 1", "0% 0 of 1")
        assert (finding, judged) == ("no finding task answered", "1 of 1")
        assert cells(row_of(page, "Recall and invention per model", "m2")) == [
            "Not asked yet: panelgate suite run --model m2"
        ]
        assert page.locator("figure.chart svg g.point text").all_text_contents() == ["m1"]

        mine = heat_cell(page, "m1", task)
        assert mine.get_attribute("data-result") == "right" and mine.inner_text() == "✓"
        assert heat_cell(page, "m2", task).get_attribute("data-result") == "not asked"
        assert cells(row_of(page, CLAIMS, "m1"))[-1] == "1 of 1"
        assert cells(row_of(page, "Confidently wrong answers per model", "m1"))[3] == "none"

        page.get_by_role("button", name=f"m1 on {task}: right").click()
        dialog = page.get_by_role("dialog", name=f"m1 on {task}")
        dialog.get_by_text("The attached code says so").wait_for()
        assert "Found VERDICT: TRUE" in " ".join(dialog.locator("#answer-score").inner_text().split())


def test_the_heatmap_and_tables_read_without_script(bench: Gateway, upstream: FakeUpstream, browser: Browser):
    task = claim_task(bench, "TRUE")
    upstream.behave("m1", answer="VERDICT: TRUE" + REASONS)
    run_suite(bench, "m1", task)
    context = browser.new_context(java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto(f"{bench.url}/benchmarks")
        assert heat_cell(page, "m1", task).inner_text() == "✓"
        assert cells(row_of(page, "Recall and invention per model", "m1"))[1] == "100% 1 of 1"
    finally:
        context.close()


def test_a_false_claim_answered_true_is_an_invention_and_confidently_wrong(
    bench: Gateway, upstream: FakeUpstream, browser: Browser
):
    task = claim_task(bench, "FALSE")
    upstream.behave("m1", answer="VERDICT: TRUE" + REASONS)
    assert run_suite(bench, "m1", task)["invented"] == ["VERDICT: TRUE"]
    with watched_page(browser, bench.url, viewport=PHONE, theme="dark") as watched:
        page = watched.page
        page.goto(f"{bench.url}/benchmarks")
        _, recall, invented, *_ = cells(row_of(page, "Recall and invention per model", "m1"))
        assert (recall, invented) == ("0% 0 of 1", "100% 1 of 1")
        alarms, believed, verified, total, tasks = cells(
            row_of(page, "Confidently wrong answers per model", "m1")
        )
        assert alarms.startswith("0 0 of 0") and believed.startswith("1 1 of 1")
        assert (verified, total, tasks) == ("0 verified by people", "1 wrong", task)
        cell = heat_cell(page, "m1", task)
        assert (cell.get_attribute("data-result"), cell.inner_text()) == ("invented", "!")
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


def test_false_claims_found_in_panel_answers_show_before_any_suite_run(
    bench: Gateway, upstream: FakeUpstream, browser: Browser
):
    seat = ask(bench, hello()).json()["bench"]["seats"][0]
    bench.api(
        "POST", "/bench/verdict", {"call": seat["call"], "useful": False, "false": ["a", "b"]}, expect=200
    )
    alias = seat["alias"]
    with watched_page(browser, bench.url) as watched:
        page = watched.page
        page.goto(f"{bench.url}/benchmarks")
        assert "No suite results yet" in page.locator("#no-results").inner_text()
        *_, verified, total, tasks = cells(row_of(page, "Confidently wrong answers per model", alias))
        assert (verified, total, tasks) == ("2 verified by people", "2 wrong", "—")


def test_speed_shows_the_newest_speed_test(bench: Gateway, upstream: FakeUpstream, browser: Browser):
    upstream.behave("m1", answer="ready", delay=0.05, usage=(20, 4))
    bench.api("POST", "/api/scheduler/jobs/speed-test/run", expect=200)
    (m1,) = [m for m in bench.api("GET", "/api/health")["models"] if m["alias"] == "m1"]
    measures = {p["probe"]: p["measures"] for p in m1["probes"]}
    tiny, large = measures["speed-tiny"], measures["speed-large"]
    with watched_page(browser, bench.url) as watched:
        page = watched.page
        page.goto(f"{bench.url}/benchmarks")
        assert "No suite results yet" in page.locator("#no-results").inner_text()
        short, short_out, long, long_out, measured = cells(row_of(page, "Speed per model", "m1"))
        assert short == f"{tiny['p50_s']:.2f} s / {tiny['p95_s']:.2f} s"
        assert long == f"{large['p50_s']:.2f} s / {large['p95_s']:.2f} s"
        assert short_out == f"{tiny['chars_per_s']:,.0f} chars/s {tiny['tokens_per_s']:,.0f} tokens/s"
        assert long_out.startswith(f"{large['chars_per_s']:,.0f} chars/s")
        assert measured != "never"


def test_empty_states_say_what_to_do(gateway: Gateway, upstream: FakeUpstream, browser: Browser):
    with watched_page(browser, gateway.url) as watched:
        page = watched.page
        page.goto(f"{gateway.url}/benchmarks")
        empty = page.locator("#no-results").inner_text()
        assert "Nothing on the bench yet: put a model on the bench" in empty
        assert "panelgate suite run --model ALIAS" in empty
        assert "panelgate scheduler run speed-test" in page.locator("#no-speed").inner_text()
        gateway.add_endpoint("up", upstream.url)
        upstream.serve("m1")
        gateway.add_model("m1")
        page.reload()
        empty = page.locator("#no-results").inner_text()
        assert "No suite results yet" in empty and "panelgate suite run --model ALIAS" in empty
        assert page.get_by_role("table", name="Recall and invention per model").count() == 0
