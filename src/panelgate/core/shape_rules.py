"""The shape rules: which kind of work a request asks for, read from its words.

A panel's shape decides two things: which models may take its explorer
seats (a code review may seat a `code` model, a quick question a `light`
one) and under which shape its verdicts count as evidence. When every text
request was `general`, a model that shines at reviews and one that only
chats earned the same record. These rules read the person's ask (the last
user message) and name a shape with no call and no clock, so every panel
gets one for free; a decision model, when the gateway names one, may
overrule them (engine/shape_decision.py).

The rules are one ordered table: the first rule that matches decides, so
the more specific reading comes first (code asked to be reviewed before
any code, a writing ask before the design words it may mention). Nothing
matches → `general`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from panelgate.core.sizing import message_text
from panelgate.core.types import ChatMessage, Shape

DECIDABLE_SHAPES: tuple[Shape, ...] = ("general", "design", "prose", "review", "code", "enumeration", "quick")
"""The shapes a request's words can name (`vision` comes from its images, `image` is never asked)."""

QUICK_MOST_CHARS = 160
"""A quick question fits on one line of about this many characters."""

_FLAGS = re.IGNORECASE | re.MULTILINE
_FENCE = re.compile(r"^\s*(```|~~~)", _FLAGS)
_FENCED_BLOCK = re.compile(r"^\s*(```|~~~).*?(^\s*\1[^\n]*$|\Z)", _FLAGS | re.DOTALL)
_DIFF = re.compile(r"^(diff --git |@@ -\d+(,\d+)? \+\d+(,\d+)? @@|--- a/\S|\+\+\+ b/\S)", _FLAGS)
_CODE_LINE = re.compile(
    r"^\s*(def |class |import |from [\w.]+ import |function |const |let |var |public |private |"
    r"#include|fn |func |package |return\b)|[;{}]\s*$",
    _FLAGS,
)
_CODE_LINES_NEEDED = 3
"""Lines that look like code (outside a fence) before pasted code counts as code."""
_REVIEW_ASK = re.compile(
    r"\b(review|check|audit|critique|inspect|proof-?read)(s|ed|ing)?\b|\blook over\b"
    r"|\b(find|spot|catch|any|are there( any)?)\s+(the\s+)?(bugs?|issues?|problems?|mistakes?|errors?|"
    r"vulnerabilit\w+|flaws?)\b"
    r"|\bbugs?\s+(in|here)\b|\bwhat'?s wrong\b|\bis (this|it|that) (correct|right|safe)\b"
    r"|\blooks? (good|fine|right|ok(ay)?)\b|\blgtm\b",
    _FLAGS,
)
_ENUMERATION_ASK = re.compile(
    r"\benumerate\b"
    r"|\b(list|name|give|show|find|tell)\b(\s+\w+){0,2}?\s+(all|every)\b"
    r"|\bwhat are all\b|\b(complete|full|exhaustive) list\b",
    _FLAGS,
)
_WRITING_NOUNS = (
    r"essay|article|(short )?stor(y|ies)|blog post|post|poem|letter|speech|chapter|novel|narrative|"
    r"press release|newsletter|op-?ed|screenplay|biography|eulogy|report"
)
_PROSE_ASK = re.compile(
    rf"\b(write|draft|compose|craft)\b[^.?!\n]{{0,60}}\b({_WRITING_NOUNS})\b"
    r"|\b(rewrite|reword|paraphrase|copy-?edit)\b"
    r"|\b\d{3,}[ -]words?\b",
    _FLAGS,
)
_DESIGN_WORDS = re.compile(
    r"\b(architecture|architect|design|designing|trade-?offs?|schemas?|data model|system design|"
    r"api design|scalability|microservices?|monolith)\b",
    _FLAGS,
)
_QUESTION_OPENING = re.compile(
    r"^(what|who|whom|when|where|which|why|how|is|are|was|were|can|could|does|do|did|should|would|"
    r"will|may)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Ask:
    """The request as the rules read it."""

    text: str
    """The last user message's text (images left out)."""
    opens_conversation: bool
    """No user or assistant turn came before it."""

    @property
    def words(self) -> str:
        """The text without its fenced blocks: what the person asked, not the code they pasted."""
        return _FENCED_BLOCK.sub("", self.text)

    @property
    def has_code(self) -> bool:
        """A fenced block, a diff, or a few lines that read as code."""
        if _FENCE.search(self.text) or _DIFF.search(self.text):
            return True
        return len(_CODE_LINE.findall(self.text)) >= _CODE_LINES_NEEDED


def read_ask(messages: Sequence[ChatMessage]) -> Ask:
    """What the rules read: the last user message, and whether anything was said before it."""
    turns = [m for m in messages if m.get("role") in ("user", "assistant")]
    last = next((m for m in reversed(turns) if m.get("role") == "user"), None)
    if last is None:
        return Ask(text="", opens_conversation=True)
    return Ask(text=message_text(last).strip(), opens_conversation=turns.index(last) == 0)


def _asks_review(ask: Ask) -> bool:
    return ask.has_code and _REVIEW_ASK.search(ask.words) is not None


def _is_quick(ask: Ask) -> bool:
    text = ask.text
    one_line = bool(text) and "\n" not in text and len(text) <= QUICK_MOST_CHARS
    question = text.endswith("?") or _QUESTION_OPENING.match(text) is not None
    return one_line and question and ask.opens_conversation


@dataclass(frozen=True)
class ShapeRule:
    """One line of the table: the shape a request gets when `matches` says it reads that way."""

    shape: Shape
    name: str
    """What the rule looks for, in a person's words."""
    matches: Callable[[Ask], bool]


RULES: tuple[ShapeRule, ...] = (
    ShapeRule("review", "code or a diff, asked to review, check or find bugs", _asks_review),
    ShapeRule("code", "code or a diff, asked anything else", lambda ask: ask.has_code),
    ShapeRule(
        "enumeration",
        "asked to list or enumerate all of something",
        lambda ask: _ENUMERATION_ASK.search(ask.words) is not None,
    ),
    ShapeRule(
        "prose",
        "asked for a piece of writing: an essay, article, story, a rewrite",
        lambda ask: _PROSE_ASK.search(ask.words) is not None,
    ),
    ShapeRule(
        "design",
        "design words: architecture, design, trade-offs, schema, API design",
        lambda ask: _DESIGN_WORDS.search(ask.words) is not None,
    ),
    ShapeRule("quick", "a short one-line question opening the conversation", _is_quick),
)
"""In order: the first rule that matches decides the shape."""


def deciding_rule(messages: Sequence[ChatMessage]) -> ShapeRule | None:
    """The first rule the request matches, or None when it reads as `general`."""
    ask = read_ask(messages)
    return next((rule for rule in RULES if rule.matches(ask)), None)


def shape_by_rules(messages: Sequence[ChatMessage]) -> Shape:
    """The shape the rules give the request: the first matching rule's, else `general`."""
    rule = deciding_rule(messages)
    return "general" if rule is None else rule.shape
