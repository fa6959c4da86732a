"""A chat UI's background tasks, and which panels owe verdicts.

Open WebUI asks the chat's model, besides every message a person sends, for
a title, tags and follow-up suggestions. Each is an ordinary request whose
last user message is a filled-in template opening with `### Task:`. Sent to
a panel, each one seats every member and leaves its answers waiting for
verdicts nobody means to give, which buries the verdicts owed on real
questions. A collection's `verdicts_owed` says whether its panels owe any:
`all`, `chats` (all but such background tasks) or `none`. The answers are
recorded either way, and can still be judged.
"""

from __future__ import annotations

from collections.abc import Sequence

from panelgate.core.types import ChatMessage, VerdictsOwed

TASK_OPENING = "### Task:"
"""How Open WebUI's title, tags, follow-up and query templates open (and templates written like them)."""


def _text(message: ChatMessage) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [p.get("text") for p in content if isinstance(p, dict) and p.get("type") == "text"]
        return "".join(text for text in texts if isinstance(text, str))
    return ""


def is_background_task(messages: Sequence[ChatMessage]) -> bool:
    """The last user message opens with `### Task:`: a chat UI asking for a title, tags and the like."""
    asked = next((m for m in reversed(messages) if m.get("role") == "user"), None)
    return asked is not None and _text(asked).lstrip().startswith(TASK_OPENING)


def owes_verdicts(setting: VerdictsOwed, messages: Sequence[ChatMessage]) -> bool:
    """Whether a panel of a collection with this `verdicts_owed` setting, asked `messages`, owes verdicts."""
    if setting == "none":
        return False
    return setting == "all" or not is_background_task(messages)
