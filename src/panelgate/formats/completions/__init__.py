"""OpenAI legacy completions, one adapter for both ways of answering: `panel` reads a request as a panel and
writes the panel's reply; `route` reads it as a route turn and relays the member's answer. The
API's HTTP routes hold one adapter (`ApiAdapter`) and the engine decides which half is used."""

from __future__ import annotations

from panelgate.formats.completions.panel import OpenAICompletions
from panelgate.formats.completions.route import CompletionsRoute


class CompletionsApi(OpenAICompletions, CompletionsRoute):
    """OpenAICompletions for panels and CompletionsRoute for route turns, as one `ApiAdapter`."""
