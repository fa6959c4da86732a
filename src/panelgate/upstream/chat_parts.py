"""Read the pieces of an OpenAI chat body that every outbound translation reads alike.

Anthropic and Gemini each want the same facts out of a chat-completions body,
then word them their own way: an image's media type and base64 data, a tool
call's arguments as an object, the output-token limit, the stop sequences.
Reading them once, here, keeps the translations from drifting apart on what a
loose body means (a percent-encoded data: URL, arguments that are not JSON,
`stop` as one string).
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any
from urllib.parse import unquote_to_bytes

import orjson


def data_url(url: str) -> tuple[str, str] | None:
    """The media type and base64 data of a `data:` URL, or None when it carries no data.

    A percent-encoded payload is base64-encoded here: the APIs we translate to take only base64.
    """
    head, comma, payload = url[5:].partition(",")
    if not comma:
        return None
    media_type, *params = head.split(";")
    if "base64" in params:
        return media_type or "application/octet-stream", payload
    return media_type or "text/plain", base64.b64encode(unquote_to_bytes(payload)).decode()


def tool_arguments(arguments: object) -> dict[str, Any]:
    """A tool call's arguments as an object: parsed JSON, `{}` when empty, else `{"raw": text}`.

    Arguments that are not a JSON object are a model's broken output, replayed by
    the agent; refusing them would make the member unusable for the rest of the
    conversation.
    """
    if isinstance(arguments, Mapping):
        return dict(arguments)
    if not isinstance(arguments, str) or not arguments.strip():
        return {}
    try:
        parsed = orjson.loads(arguments)
    except orjson.JSONDecodeError:
        return {"raw": arguments}
    return parsed if isinstance(parsed, dict) else {"raw": arguments}


def max_output_tokens(chat: Mapping[str, Any]) -> int | None:
    """`max_completion_tokens`, else `max_tokens`, whichever is first a positive integer."""
    for field in ("max_completion_tokens", "max_tokens"):
        value = chat.get(field)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return None


def stop_sequences(chat: Mapping[str, Any]) -> list[str]:
    """`stop` (one string or a list) as the list of its non-empty strings."""
    stop = chat.get("stop")
    stops = [stop] if isinstance(stop, str) else stop if isinstance(stop, list) else []
    return [s for s in stops if isinstance(s, str) and s]
