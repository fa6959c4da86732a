"""Record: models ranked per shape with their estimates drawn, kept live as panels and verdicts come in;
verdicts per day; the next explorer seats; the empty state; both themes, desktop and phone."""

from __future__ import annotations

from playwright.sync_api import Browser, Page

from panelgate.web.estimate_svg import percent
from tests.http.helpers import ask
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream
from tests.web.browser import PHONE, watched_page

LIVE_WITHIN_MS = 5000
LIGHT_ACCENT = "rgb(29, 91, 184)"
DARK_ACCENT = "rgb(121, 175, 255)"
"""themes.css's `--accent`: the estimate's dot is drawn in the theme's colour, never a fixed one."""
TEXTS = """root => {
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const found = [];
  while (walker.nextNode()) {
    const text = walker.currentNode.textContent.replace(/\\s+/g, " ").trim();
    if (text) found.push(text);
  }
  return found;
}"""
"""Every piece of text under an element (SVG titles too), in order, whitespace collapsed."""
DOT_FILL = "getComputedStyle(document.querySelector('#shape-general circle.dot')).fill"
"""Read in one step: the page may redraw the table between two steps."""


def panel(gateway: Gateway, collection: str = "core") -> dict[str, str]:
    """Alias → call id of one panel."""
    body = {"model": f"bench/{collection}", "messages": [{"role": "user", "content": "say hi"}]}
    reply = ask(gateway, body)
    assert reply.status_code == 200, reply.text
    return {seat["alias"]: seat["call"] for seat in reply.json()["bench"]["seats"]}


def judge_panels(gateway: Gateway, times: int, useful: dict[str, bool], collection: str = "core") -> None:
    """Ask `times` panels and judge each seat named in `useful`."""
    for _ in range(times):
        seats = panel(gateway, collection)
        for alias, was_useful in useful.items():
            gateway.api("POST", "/bench/verdict", {"call": seats[alias], "useful": was_useful}, expect=200)


def ranked(page: Page, shape: str = "general") -> list[tuple[str, str]]:
    """(model, verdicts) of each row of a shape's standings, top first."""
    rows = page.locator(f"#shape-{shape} tbody tr")
    return [
        (row.get_by_role("rowheader").inner_text(), row.locator("td.judged").inner_text())
        for row in rows.all()
    ]


def wait_for_ranking(page: Page, aliases: list[str], shape: str = "general") -> None:
    page.wait_for_function(
        """([shape, wanted]) => [...document.querySelectorAll(`#shape-${shape} tbody th`)]
            .map((cell) => cell.textContent).join() === wanted""",
        arg=[shape, ",".join(aliases)],
        timeout=LIVE_WITHIN_MS,
    )


def test_models_are_ranked_per_shape_and_a_new_leader_shows_without_a_reload(
    bench: Gateway, upstream: FakeUpstream, browser: Browser
):
    bench.gateway_settings(max_calls=4, max_explorers=1)
    judge_panels(bench, 3, {"m1": True, "m2": False})
    judge_panels(bench, 1, {"m3": True})
    with watched_page(browser, bench.url) as watched:
        page = watched.page
        page.goto(f"{bench.url}/record")
        assert page.locator("nav a[aria-current=page]").inner_text() == "Record"
        wait_for_ranking(page, ["m1", "m3", "m2"])
        assert ranked(page) == [("m1", "3"), ("m3", "1"), ("m2", "3")]
        estimate = page.locator("#shape-general tbody tr").first.get_by_role("img")
        leader = bench.api("GET", "/api/record", expect=200)["standings"]["general"][0]
        assert leader["alias"] == "m1"
        shown = f"m1: {percent(leader['mean'])} useful, 90% interval {percent(leader['low'])} to "
        assert estimate.locator("title").text_content().startswith(shown)
        assert page.evaluate(DOT_FILL) == LIGHT_ACCENT
        assert (
            page.locator("#timeline-total")
            .inner_text()
            .startswith("7 verdicts in the last 30 days: 4 useful")
        )
        page.evaluate("window.notReloaded = true")

        judge_panels(bench, 4, {"m1": False, "m2": True, "m3": False})
        wait_for_ranking(page, ["m2", "m1", "m3"])
        assert ranked(page) == [("m2", "7"), ("m1", "7"), ("m3", "5")]
        page.locator("#timeline-total", has_text="19 verdicts in the last 30 days: 8 useful").wait_for()
        explorers = page.locator("#explore-general li.candidate")
        assert "m2" in explorers.filter(has_text="leader: best posterior mean").inner_text()
        assert page.evaluate("window.notReloaded") is True
    shown = bench.api("GET", "/api/record", expect=200)["standings"]["general"]
    assert [row["alias"] for row in shown] == ["m2", "m1", "m3"]


def test_the_live_redraw_draws_what_the_server_drew(bench: Gateway, upstream: FakeUpstream, browser: Browser):
    bench.gateway_settings(max_calls=4, max_explorers=1)
    upstream.serve("newcomer")
    bench.add_model("newcomer")
    judge_panels(bench, 2, {"m1": True, "m2": False})
    upstream.behave("m3", answer="VERDICT: TRUE\nThe attached code does what the claim says.")
    suite_run = {"models": ["m3"], "tasks": ["claim-sizing-images-flat"]}  # a row with suite results
    bench.api("POST", "/api/suite/run", suite_run, expect=200)
    with watched_page(browser, bench.url) as watched:
        page = watched.page
        page.goto(f"{bench.url}/record")
        wait_for_ranking(page, ["m1", "m2"])
        page.evaluate("window.notReloaded = true")
        seats = panel(bench)  # the newcomer sits on this one: the explorer order changes
        better = {"call": seats["m3"], "useful": True, "better_than": [seats["m2"]]}  # a pairwise verdict
        bench.api("POST", "/bench/verdict", better, expect=200)
        bench.api("POST", "/bench/verdict", {"call": seats["m2"], "useful": True}, expect=200)
        wait_for_ranking(page, ["m1", "m3", "m2"])
        assert page.locator("#shape-general td.pairwise").first.inner_text() != ""
        assert page.evaluate("window.notReloaded") is True
        drawn = {
            part: page.locator(part).evaluate(TEXTS)
            for part in ("#standings", "#timeline", "#next-explorers")
        }
        assert any(text.endswith("0 verdicts, 1 suite result") for text in drawn["#standings"])
    server = browser.new_context(java_script_enabled=False)
    try:
        first_paint = server.new_page()
        first_paint.goto(f"{bench.url}/record")
        for part, texts in drawn.items():
            assert first_paint.locator(part).evaluate(TEXTS) == texts, part
    finally:
        server.close()


def test_with_no_verdicts_the_page_says_how_to_record_them_then_fills_in(
    bench: Gateway, upstream: FakeUpstream, browser: Browser
):
    with watched_page(browser, bench.url) as watched:
        page = watched.page
        page.goto(f"{bench.url}/record")
        empty = page.locator("#no-verdicts")
        assert "panelgate verdict" in empty.inner_text() and "MCP tool verdict" in empty.inner_text()
        assert empty.get_by_role("link", name="Judge view").get_attribute("href") == "/judge"
        assert "no explorer seat" in page.locator("#explore-general").inner_text()
        judge_panels(bench, 1, {"m2": True})
        wait_for_ranking(page, ["m2"])
        assert page.locator("#no-verdicts").count() == 0


def test_choosing_a_collection_narrows_the_record_to_its_verdicts(
    bench: Gateway, upstream: FakeUpstream, browser: Browser
):
    bench.save_collection("solo", ["m3"])
    judge_panels(bench, 1, {"m1": True, "m2": False})
    judge_panels(bench, 2, {"m3": True}, collection="solo")
    with watched_page(browser, bench.url) as watched:
        page = watched.page
        page.goto(f"{bench.url}/record")
        wait_for_ranking(page, ["m3", "m1", "m2"])
        page.get_by_label("Collection").select_option("solo")
        wait_for_ranking(page, ["m3"])
        assert page.url.endswith("/record?collection=solo")
        assert ranked(page) == [("m3", "2")]
        assert page.locator("#timeline-total").inner_text().startswith("2 verdicts")
        assert "of bench/solo" in page.locator("#explore-general").inner_text()


def test_at_phone_width_in_the_dark_the_tables_scroll_inside_their_frame(
    bench: Gateway, upstream: FakeUpstream, browser: Browser
):
    judge_panels(bench, 3, {"m1": True, "m2": False})
    judge_panels(bench, 1, {"m3": True})
    with watched_page(browser, bench.url, viewport=PHONE, theme="dark") as watched:
        page = watched.page
        page.goto(f"{bench.url}/record")
        wait_for_ranking(page, ["m1", "m3", "m2"])
        assert page.evaluate("document.documentElement.dataset.theme") == "dark"
        assert page.evaluate(DOT_FILL) == DARK_ACCENT
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= PHONE["width"], "the page scrolls sideways at phone width"
        assert page.locator("#shape-general thead th").count() == 5, "a column went missing"
        # Wider than the phone (760 px at least), the table scrolls inside its frame, never the page, and
        # its last column comes into view.
        # Found and scrolled in one step of the page's own: a locator's element, found first and then
        # scrolled, may be the table the page's first live reading replaced in between.
        scrolled = page.evaluate(
            """() => {
                const wrap = document.querySelector('#shape-general .table-wrap');
                wrap.scrollLeft = wrap.scrollWidth;
                return wrap.scrollLeft;
            }"""
        )
        assert scrolled > 0, "the table fits the phone: nothing to scroll"
        judge_panels(bench, 1, {"m1": True})  # the live redraw must keep the table where it was scrolled
        page.wait_for_function(
            """() => document.querySelector('#shape-general tr[data-alias="m1"] td.judged')
                ?.textContent === '4'""",
            timeout=LIVE_WITHIN_MS,
        )
        verdicts = page.locator("#shape-general td.judged").first.bounding_box()
        assert verdicts is not None and verdicts["x"] + verdicts["width"] <= PHONE["width"]


def test_at_phone_width_each_newest_verdict_keeps_its_call_id_on_one_line(
    bench: Gateway, upstream: FakeUpstream, browser: Browser
):
    judge_panels(bench, 2, {"m1": True, "m2": False})
    with watched_page(browser, bench.url, viewport=PHONE) as watched:
        page = watched.page
        page.goto(f"{bench.url}/record")
        wait_for_ranking(page, ["m1", "m2"])
        rows = page.evaluate(
            """() => [...document.querySelectorAll('#newest-verdicts tbody tr')].map((row) => {
                const call = row.querySelector('th').getBoundingClientRect();
                const line = parseFloat(getComputedStyle(row.querySelector('th code')).lineHeight);
                const said = (cell, where) => getComputedStyle(cell, where).content.replaceAll('"', '');
                const [by, when] = [row.querySelector('td[data-label="by"]'), row.querySelector('td.when')];
                return {call: row.dataset.call, height: call.height, line, right: call.right,
                        text: row.innerText.replace(/\\s+/g, ' ').trim(),
                        by: said(by, '::before') + by.textContent,
                        when: when.textContent + said(when, '::after')};
            })"""
        )
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    assert len(rows) == 4
    for row in rows:
        assert row["height"] < 1.5 * row["line"], f"{row['call']} breaks over lines"
        assert row["right"] <= PHONE["width"]
        assert row["text"].startswith(row["call"] + " ")
        assert row["by"] == " · by local"  # the column headers are hidden: the cells say what they are
        assert row["when"].endswith(" UTC")
