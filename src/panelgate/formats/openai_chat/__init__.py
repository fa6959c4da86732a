"""OpenAI chat completions, one adapter for both ways of answering: `panel` reads a request as a panel and
writes the panel's reply; `route` reads it as a route turn and relays the member's answer. The
API's HTTP routes hold one adapter (`ApiAdapter`) and the engine decides which half is used."""

from __future__ import annotations

from panelgate.formats.openai_chat.panel import OpenAIChat
from panelgate.formats.openai_chat.route import OpenAIChatRoute


class OpenAIChatApi(OpenAIChat, OpenAIChatRoute):
    """OpenAIChat for panels and OpenAIChatRoute for route turns, as one `ApiAdapter`."""
