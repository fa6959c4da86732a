"""What Discover needs of a catalog model beyond its facts: its name, whether it answers in text, whether
it is deprecated, and the API its provider speaks.

These are read when a catalog is read and stored with the entry
(`CatalogEntry.traits`), so the Discover page works from the store alone:
offline, and on every replica of a cluster, not just the one whose data
folder holds the cached documents.

The API a provider speaks decides whether a model is *easy to add*: the
gateway calls OpenAI's chat API, Anthropic's messages and Gemini natively, so
a provider is easy when models.dev names an OpenAI-compatible base URL
(`api`), or when its SDK package (`npm`) is one of those APIs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

NPM_APIS = {
    "@ai-sdk/openai-compatible": "chat",
    "@ai-sdk/openai": "chat",
    "@openrouter/ai-sdk-provider": "chat",
    "@ai-sdk/groq": "chat",
    "@ai-sdk/deepseek": "chat",
    "@ai-sdk/xai": "chat",
    "@ai-sdk/mistral": "chat",
    "@ai-sdk/togetherai": "chat",
    "@ai-sdk/cerebras": "chat",
    "@ai-sdk/deepinfra": "chat",
    "@ai-sdk/fireworks": "chat",
    "@ai-sdk/perplexity": "chat",
    "@ai-sdk/anthropic": "anthropic",
    "@ai-sdk/google": "gemini",
}
"""SDK packages models.dev names for a provider, and the endpoint API of ours that reaches it."""
OPENROUTER_BASE = "https://openrouter.ai/api/v1"
MAX_NAME = 200


def models_dev_traits(provider: Mapping[str, Any], model: Mapping[str, Any]) -> dict[str, Any]:
    base = provider.get("api")
    base_url = base if isinstance(base, str) and base.startswith(("https://", "http://")) else ""
    npm = provider.get("npm")
    api = NPM_APIS.get(npm) if isinstance(npm, str) else None
    return {
        "name": _name(model.get("name")),
        "text_out": _says_text(_mapping(model.get("modalities")).get("output")),
        "deprecated": model.get("status") == "deprecated",
        "api": api or ("chat" if base_url else None),
        "base_url": base_url,
    }


def openrouter_traits(model: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "name": _name(model.get("name")),
        "text_out": _says_text(_mapping(model.get("architecture")).get("output_modalities")),
        "deprecated": False,
        "api": "chat",
        "base_url": OPENROUTER_BASE,
    }


def _name(value: Any) -> str:
    return value.strip()[:MAX_NAME] if isinstance(value, str) else ""


def _says_text(outputs: Any) -> bool | None:
    """Whether the model answers in text; None when the catalog does not say."""
    return "text" in outputs if isinstance(outputs, list) else None


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}
