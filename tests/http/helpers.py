"""Small readers shared by the HTTP tests."""

from __future__ import annotations

from typing import Any

import httpx
import orjson
from openai import OpenAI

from tests.support.gateway import Gateway


def sdk(gateway: Gateway, **options: Any) -> OpenAI:
    """The official OpenAI client pointed at the gateway."""
    return gateway.keep(
        OpenAI(base_url=f"{gateway.url}/v1", api_key="unused-locally", max_retries=0, **options)
    )


def ask(gateway: Gateway, body: dict[str, Any], **headers: str) -> httpx.Response:
    return httpx.post(f"{gateway.url}/v1/chat/completions", json=body, headers=headers, timeout=60)


def sse_events(raw: str) -> list[dict[str, Any] | str]:
    """The `data:` payloads of an SSE body, JSON decoded; `[DONE]` kept as a string."""
    events: list[dict[str, Any] | str] = []
    for line in raw.splitlines():
        if line.startswith("data: "):
            payload = line[len("data: ") :]
            events.append(payload if payload == "[DONE]" else orjson.loads(payload))
    return events


def hello(model: str = "bench/core", **extra: Any) -> dict[str, Any]:
    return {"model": model, "messages": [{"role": "user", "content": "say hi"}], **extra}
