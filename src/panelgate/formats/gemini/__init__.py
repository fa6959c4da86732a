"""Gemini generateContent, one adapter for both ways of answering: `panel` reads a request as a panel and
writes the panel's reply; `route` reads it as a route turn and relays the member's answer. The
API's HTTP routes hold one adapter (`ApiAdapter`) and the engine decides which half is used."""

from __future__ import annotations

from panelgate.formats.gemini.panel import GeminiFormat
from panelgate.formats.gemini.route import GeminiRoute


class GeminiApi(GeminiFormat, GeminiRoute):
    """GeminiFormat for panels and GeminiRoute for route turns, as one `ApiAdapter`."""
