"""A seat's answer as HTML the dashboard can show: the markdown rendered, nothing active left in it.

Answers are written by models, which repeat whatever a prompt or a web page
fed them, so an answer is treated as hostile text. Raw HTML is escaped, not
interpreted (`html: False`); a link survives only as http(s) or mailto and
opens a new tab without the dashboard as its opener or referrer; an image is
shown as a link to it rather than loaded (it would reach another host, which
the page's Content Security Policy forbids anyway). Table cells carry their
alignment as a class, since the policy also refuses inline `style`.
"""

from __future__ import annotations

from collections.abc import Sequence

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict

SAFE_SCHEMES = ("http://", "https://", "mailto:")
LINK_REL = "noopener noreferrer nofollow"
ALIGNMENTS = ("left", "center", "right")
Tokens = Sequence[Token]


class _AnswerMarkdown(MarkdownIt):
    """CommonMark with tables, raw HTML off, and links and images only to http(s) or mailto."""

    def __init__(self) -> None:
        super().__init__("commonmark", {"html": False})
        self.enable("table")
        self.add_render_rule("link_open", _link_open)
        self.add_render_rule("image", _image)
        self.add_render_rule("table_open", _table_open)
        self.add_render_rule("table_close", _table_close)
        self.add_render_rule("th_open", _cell_open)
        self.add_render_rule("td_open", _cell_open)

    def validateLink(self, url: str) -> bool:
        """A destination that is not a safe absolute link leaves its markdown as plain text."""
        return url.strip().lower().startswith(SAFE_SCHEMES)


def _link_open(self: RendererHTML, tokens: Tokens, idx: int, options: OptionsDict, env: EnvType) -> str:
    tokens[idx].attrSet("rel", LINK_REL)
    tokens[idx].attrSet("target", "_blank")
    return self.renderToken(tokens, idx, options, env)


def _image(self: RendererHTML, tokens: Tokens, idx: int, options: OptionsDict, env: EnvType) -> str:
    token = tokens[idx]
    alt = self.renderInlineAsText(token.children or [], options, env) or "image"
    src = escapeHtml(str(token.attrGet("src") or ""))
    return f'<a href="{src}" rel="{LINK_REL}" target="_blank">[image: {escapeHtml(alt)}]</a>'


def _table_open(self: RendererHTML, tokens: Tokens, idx: int, options: OptionsDict, env: EnvType) -> str:
    return '<div class="table-wrap">\n<table>\n'


def _table_close(self: RendererHTML, tokens: Tokens, idx: int, options: OptionsDict, env: EnvType) -> str:
    return "</table>\n</div>\n"


def _cell_open(self: RendererHTML, tokens: Tokens, idx: int, options: OptionsDict, env: EnvType) -> str:
    """`style="text-align:right"` (refused by the page's policy) becomes `class="align-right"`."""
    token = tokens[idx]
    align = str(token.attrGet("style") or "").removeprefix("text-align:")
    token.attrs = {"class": f"align-{align}"} if align in ALIGNMENTS else {}
    return self.renderToken(tokens, idx, options, env)


_MARKDOWN = _AnswerMarkdown()
"""Configured once; rendering keeps its state per call, so one parser serves every request."""


def answer_html(markdown: str) -> str:
    """`markdown` rendered as sanitized HTML (a fragment, no surrounding element)."""
    return str(_MARKDOWN.render(markdown))
