"""Twice the output budget, for asking again a model whose answer was cut empty at its token limit.

Reasoning models spend their output tokens thinking; with a small budget
they stop at the limit (finish reason `length`) before writing a word. The
seat asks once more with twice the budget, in every max-tokens field the
call already carries (`max_tokens`, `max_completion_tokens`: each outbound
API translates them to its own, Anthropic's `max_tokens` and Gemini's
`maxOutputTokens`). A call that set none ran on the provider's default,
which we cannot see; the retry then asks `max_completion_tokens` of twice
`ASSUMED_DEFAULT` (the 4,096 we send Anthropic when nothing is set, a
common default elsewhere too). Either way the model's known `max_output`
caps it, and when the budget cannot grow there is no point asking again.
"""

from __future__ import annotations

from typing import Any

from panelgate.core.call_options import MAX_TOKEN_FIELDS

ASSUMED_DEFAULT = 4096


def doubled_budget(options: dict[str, Any], max_output: int | None) -> dict[str, Any] | None:
    """`options` with the output budget doubled (capped at `max_output`), or None when it cannot grow."""
    set_ = {name: options[name] for name in MAX_TOKEN_FIELDS if _count(options.get(name))}
    current = max(set_.values()) if set_ else ASSUMED_DEFAULT
    doubled = current * 2 if max_output is None else min(current * 2, max_output)
    if doubled <= current:
        return None
    return {**options, **dict.fromkeys(set_ or ("max_completion_tokens",), doubled)}


def _count(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0
