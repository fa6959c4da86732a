"""A seat's answer rendered for the dashboard: markdown kept, anything that could run or leak neutralised."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest

from panelgate.web.answer_html import answer_html

SAFE_HREF = ("http://", "https://", "mailto:")


class Elements(HTMLParser):
    """Every start tag of a fragment with its attributes, and the text between them."""

    def __init__(self, fragment: str) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text = ""
        self.feed(fragment)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text += data

    def named(self, tag: str) -> list[dict[str, str | None]]:
        return [attrs for name, attrs in self.tags if name == tag]


def assert_inert(fragment: str) -> Elements:
    """No script-bearing element, no event handler or style, no link but http(s)/mailto."""
    found = Elements(fragment)
    for tag, attrs in found.tags:
        assert tag not in {"script", "style", "iframe", "img", "object", "embed", "svg", "form"}, fragment
        assert not [name for name in attrs if name.startswith("on") or name == "style"], fragment
        if "href" in attrs:
            assert (attrs["href"] or "").startswith(SAFE_HREF), fragment
    return found


def test_a_script_tag_is_shown_as_text():
    shown = assert_inert(answer_html("Try this:\n\n<script>alert('x')</script>\n"))
    assert "<script>alert('x')</script>" in shown.text


@pytest.mark.parametrize(
    "markdown",
    [
        '<img src="x" onerror="alert(1)">',
        'inline <b onmouseover="alert(1)">bold</b> html',
        '<div style="position:fixed">cover</div>',
        '<iframe src="https://example.com"></iframe>',
        '<a href="javascript:alert(1)">click</a>',
    ],
)
def test_raw_html_is_escaped_not_interpreted(markdown: str):
    shown = assert_inert(answer_html(markdown))
    assert markdown in shown.text


@pytest.mark.parametrize(
    "markdown",
    [
        "[click](javascript:alert(1))",
        "[click](JaVa&#x53;cript:alert(1))",
        "[click](vbscript:msgbox(1))",
        "[click](data:text/html;base64,PHNjcmlwdD4=)",
        "<javascript:alert(1)>",
        "![pic](javascript:alert(1))",
    ],
)
def test_a_link_to_anything_but_http_or_mailto_stays_plain_text(markdown: str):
    shown = assert_inert(answer_html(markdown))
    assert shown.named("a") == []


def test_safe_links_open_a_new_tab_without_opener_referrer_or_endorsement():
    shown = assert_inert(answer_html("[docs](https://example.com/a) and <mailto:me@example.com>"))
    links = shown.named("a")
    assert [link["href"] for link in links] == ["https://example.com/a", "mailto:me@example.com"]
    assert all(link["rel"] == "noopener noreferrer nofollow" for link in links)


def test_an_image_is_a_link_to_it_not_loaded():
    shown = assert_inert(answer_html("![a chart](https://example.com/chart.png)"))
    assert shown.named("a")[0]["href"] == "https://example.com/chart.png"
    assert "[image: a chart]" in shown.text


def test_code_blocks_keep_their_text_and_language():
    shown = assert_inert(answer_html("```python\nif a < b:\n    print('<b>')\n```\n"))
    assert shown.named("code") == [{"class": "language-python"}]
    assert "if a < b:\n    print('<b>')" in shown.text


def test_tables_are_kept_with_alignment_as_a_class():
    shown = assert_inert(answer_html("| model | score |\n|:--|--:|\n| m1 | 0.9 |\n"))
    assert shown.named("table") and len(shown.named("td")) == 2
    assert [cell.get("class") for cell in shown.named("th")] == ["align-left", "align-right"]
    assert shown.named("div") == [{"class": "table-wrap"}]


def test_ordinary_markdown_renders():
    shown = assert_inert(answer_html("# Title\n\n*one* and **two**\n\n- a\n- b\n"))
    assert [tag for tag, _ in shown.tags] == ["h1", "p", "em", "strong", "ul", "li", "li"]
