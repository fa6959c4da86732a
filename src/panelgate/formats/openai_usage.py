"""A panel's `usage` in OpenAI's words (chat completions and legacy completions).

Clients that count tokens read `usage` on every reply (llm calls
`usage.model_dump()` and fails on None), so a panel reports what its calls
used: every seat's and the merger's tokens summed (`Finished.usage`), which
`bench.usage` marks as estimated where an upstream reported none. A stream
ends with a usage chunk only when `stream_options.include_usage` asks, as
OpenAI's own streams do.
"""

from __future__ import annotations

from typing import Any

from panelgate.core.errors import BadRequest
from panelgate.core.types import TokenUsage


def openai_usage(usage: TokenUsage) -> dict[str, int]:
    return {"prompt_tokens": usage.input, "completion_tokens": usage.output, "total_tokens": usage.total}


def usage_asked(body: dict[str, Any]) -> bool:
    """`stream_options.include_usage` is true: the stream is to end with a usage chunk."""
    stream_options = body.get("stream_options")
    if stream_options is None:
        return False
    if not isinstance(stream_options, dict):
        raise BadRequest(
            '`stream_options` must be an object such as {"include_usage": true}', param="stream_options"
        )
    return stream_options.get("include_usage") is True
