"""Ollama chat and generate, one adapter for both ways of answering: `panel` reads a request as a panel and
writes the panel's reply; `route` reads it as a route turn and relays the member's answer. The
API's HTTP routes hold one adapter (`ApiAdapter`) and the engine decides which half is used."""

from __future__ import annotations

from panelgate.formats.ollama.panel import OllamaChat, OllamaGenerate
from panelgate.formats.ollama.route import OllamaChatRoute, OllamaGenerateRoute


class OllamaChatApi(OllamaChat, OllamaChatRoute):
    """OllamaChat for panels and OllamaChatRoute for route turns, as one `ApiAdapter`."""


class OllamaGenerateApi(OllamaGenerate, OllamaGenerateRoute):
    """OllamaGenerate for panels and OllamaGenerateRoute for route turns, as one `ApiAdapter`."""
