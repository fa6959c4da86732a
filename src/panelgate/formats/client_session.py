"""The agent session a request belongs to, when the client says so.

Agents name their session on every request: Claude Code in the
`X-Claude-Code-Session-Id` header and in `metadata.user_id` (a JSON text with
a `session_id`), Codex in the `session-id` header and the Responses
`prompt_cache_key`, opencode in `x-session-id`. Route mode keys a
conversation by it, because the fallback key (system text and first user
message) merges separate sessions that open with the same prompt, as two
`claude -p "say hi"` runs do.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

SESSION_HEADERS = ("x-claude-code-session-id", "session-id", "x-session-id", "x-session-affinity")
"""Headers that carry a client's session id, most specific first (names as HTTP lowercases them)."""
_LONGEST = 200


def client_session(headers: Mapping[str, str], body: Mapping[str, Any]) -> str | None:
    """The session id the client sent, from its headers or its body; None when it sent none."""
    for name in SESSION_HEADERS:
        if session := _usable(headers.get(name)):
            return session
    return _usable(_metadata_session(body.get("metadata"))) or _usable(body.get("prompt_cache_key"))


def _metadata_session(metadata: object) -> object:
    """Anthropic `metadata.user_id`, as Claude Code fills it: JSON with a `session_id`."""
    user_id = metadata.get("user_id") if isinstance(metadata, Mapping) else None
    if not isinstance(user_id, str) or not user_id.startswith("{"):
        return None
    try:
        parsed = orjson.loads(user_id)
    except orjson.JSONDecodeError:
        return None
    return parsed.get("session_id") if isinstance(parsed, dict) else None


def _usable(value: object) -> str | None:
    if not isinstance(value, str):
        return None
    value = value.strip()
    return value if 0 < len(value) <= _LONGEST else None
