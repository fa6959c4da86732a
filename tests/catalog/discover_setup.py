"""The catalogs and bench Discover's tests share: the fixture catalogs with a few more models, served on
loopback, and a gateway whose `groq` endpoint (the loopback upstream) has one groq model on the bench.

Added to models.dev's fixture: a free groq model (connected through `groq`),
a free model of `freebies`, an OpenAI-compatible provider no endpoint serves
(easy to add), a paid model of `oddball`, whose API the gateway does not
speak (other), a deprecated groq model and an image model (both left out).
OpenRouter's fixture already has a `:free` model.
"""

from __future__ import annotations

from typing import Any

from tests.catalog.loopback import (
    MODELS_DEV_PATH,
    OPENROUTER_PATH,
    CatalogServer,
    models_dev,
    openrouter,
    point_catalogs_at,
    refresh,
)
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream

FREE = {"input": 0, "output": 0}
TEXT = {"input": ["text"], "output": ["text"]}
GROQ_SERVES = ("llama-3.3-70b-versatile", "llama-3.1-8b-instant", "qwen-qwq-32b")


def model(model_id: str, name: str, cost: dict[str, float], **more: Any) -> dict[str, Any]:
    return {
        "id": model_id,
        "name": name,
        "modalities": TEXT,
        "cost": cost,
        "limit": {"context": 32768},
        **more,
    }


def discover_models_dev() -> dict[str, Any]:
    document: dict[str, Any] = models_dev()
    groq = document["groq"]["models"]
    groq["llama-3.1-8b-instant"] = model("llama-3.1-8b-instant", "Llama 3.1 8B Instant", FREE)
    groq["gemma-7b-it"] = model("gemma-7b-it", "Gemma 7B", FREE, status="deprecated")
    document["openai"]["models"]["gpt-image-1"] = model(
        "gpt-image-1", "GPT Image 1", FREE, modalities={"input": ["text"], "output": ["image"]}
    )
    document["freebies"] = {
        "id": "freebies",
        "name": "Freebies",
        "npm": "@ai-sdk/openai-compatible",
        "api": "https://api.freebies.example/v1",
        "models": {"tiny-chat": model("tiny-chat", "Tiny Chat", FREE)},
    }
    document["oddball"] = {
        "id": "oddball",
        "name": "Oddball",
        "npm": "@oddball/sdk",
        "models": {"odd-1": model("odd-1", "Odd One", {"input": 1, "output": 2})},
    }
    return document


def publish(server: CatalogServer, models_dev_document: dict[str, Any] | None = None) -> None:
    server.publish(MODELS_DEV_PATH, models_dev_document or discover_models_dev())
    server.publish(OPENROUTER_PATH, openrouter())


def groq_bench(gateway: Gateway, upstream: FakeUpstream, server: CatalogServer) -> Gateway:
    """Endpoint `groq` serving `GROQ_SERVES`, `llama` on the bench, the catalogs read once (the baseline)."""
    upstream.serve(*GROQ_SERVES)
    gateway.add_endpoint("groq", upstream.url)
    gateway.add_model("llama", "llama-3.3-70b-versatile", endpoint="groq")
    publish(server)
    point_catalogs_at(gateway, server)
    refresh(gateway)
    return gateway


def rows(gateway: Gateway, query: str = "") -> list[dict[str, Any]]:
    shown: list[dict[str, Any]] = gateway.api("GET", f"/api/discover{query}", expect=200)["rows"]
    return shown


def keyed(shown: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Rows by `provider/model`."""
    return {f"{row['provider']}/{row['model']}": row for row in shown}
