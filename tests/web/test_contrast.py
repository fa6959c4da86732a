"""WCAG AA contrast of both themes, computed from the colours in themes.css (the only place they are set)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import panelgate.web

THEMES_CSS = Path(panelgate.web.__file__).parent / "static" / "themes.css"
TEXT = 4.5
"""AA for body text."""
CONTROL = 3.0
"""AA for the borders that outline a control (inputs, buttons) against what is around them."""
PAIRS = [
    ("text", "bg", TEXT),
    ("text", "surface", TEXT),
    ("muted", "bg", TEXT),
    ("muted", "surface", TEXT),
    ("link", "bg", TEXT),
    ("link", "surface", TEXT),
    ("on-accent", "accent", TEXT),
    ("ok-text", "ok-bg", TEXT),
    ("bad-text", "bad-bg", TEXT),
    ("bad-text", "surface", TEXT),
    ("empty-text", "empty-bg", TEXT),
    ("skip-text", "skip-bg", TEXT),
    ("banner-text", "banner-bg", TEXT),
    ("border", "surface", CONTROL),
    ("border", "bg", CONTROL),
    ("focus", "bg", CONTROL),
    ("focus", "surface", CONTROL),
    ("accent", "surface", CONTROL),  # the Benchmarks chart's dots
    ("ok-text", "surface", CONTROL),  # the Record page's bars of useful verdicts (not useful: bad-text)
]


def theme_colours() -> dict[str, dict[str, str]]:
    """`{theme: {token: #rrggbb}}` for each `[data-theme="..."]` block."""
    themes = {}
    for selector, body in re.findall(r"([^{}]+)\{([^}]*)\}", THEMES_CSS.read_text()):
        names = re.findall(r'data-theme="(\w+)"', selector)
        tokens = dict(re.findall(r"--([\w-]+):\s*(#[0-9a-fA-F]{6})\s*;", body))
        for name in names:
            themes[name] = tokens
    return themes


def luminance(colour: str) -> float:
    def channel(hex_pair: str) -> float:
        c = int(hex_pair, 16) / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(colour[i : i + 2]) for i in (1, 3, 5))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(one: str, other: str) -> float:
    light, dark = sorted((luminance(one), luminance(other)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def test_both_themes_set_every_colour_the_pages_use():
    themes = theme_colours()
    assert set(themes) == {"light", "dark"}
    used = {token for pair in PAIRS for token in pair[:2]}
    assert set(themes["light"]) == set(themes["dark"]) and used <= set(themes["light"])


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_every_pair_meets_aa(theme: str):
    colours = theme_colours()[theme]
    short = [
        f"{fg} on {bg}: {contrast(colours[fg], colours[bg]):.2f} < {least}"
        for fg, bg, least in PAIRS
        if contrast(colours[fg], colours[bg]) < least
    ]
    assert not short, short


def test_the_check_catches_a_pair_that_fails():
    assert contrast("#777777", "#ffffff") < TEXT <= contrast("#595959", "#ffffff")
