"""A panel's `usage` in OpenAI's words (chat completions and legacy completions).

Clients that count tokens read `usage` on every reply (llm calls
`usage.model_dump()` and fails on None), so a panel reports the gateway's
size estimate: the prompt as seating measured it, and the reply the caller
received.
"""

from __future__ import annotations

from panelgate.core.sizing import estimate_tokens
from panelgate.core.types import PanelRequest


def openai_usage(request: PanelRequest, content: str) -> dict[str, int]:
    prompt = estimate_tokens(request.messages)
    completion = estimate_tokens([{"role": "assistant", "content": content}])
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}
