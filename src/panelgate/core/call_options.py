"""The options one upstream call carries: the caller's over the model's stored ones, clamped to the model.

Every inbound format decodes the caller's sampling options (temperature,
top_p, max tokens, stop, seed…) under their OpenAI chat names, and a person
may store call options on a model (a reasoning model that wants
`temperature: 1`, say). A call sends both, the caller's winning where both
say something: the stored options are the model's defaults, the caller's are
this request. A caller's `null` says nothing, so it does not erase a stored
value.

Max output tokens are clamped to what the model takes: a provider refuses a
request for more than it can write, where the caller meant "as much as you
can" (Claude Code asks for 32,000 from every model). Panel seats, the merger
and route turns all go through `call_options`, so one rule decides them all.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from panelgate.core.types import ModelInfo

MAX_TOKEN_FIELDS = ("max_tokens", "max_completion_tokens")
"""The OpenAI names of one option: a caller who sends either overrides a stored value of both."""


def call_options(asked: dict[str, Any], model: ModelInfo) -> dict[str, Any]:
    """What a call to `model` is sent with when the caller asked `asked` (never changed; returned
    as is when nothing is added or clamped, since a route turn's body holds the whole conversation)."""
    if model.options:
        asked = _over(asked, model.options)
    return clamped(asked, model.max_output)


def clamped(options: dict[str, Any], max_output: int | None) -> dict[str, Any]:
    """`options` with every max-tokens field no higher than `max_output` (None: no known maximum)."""
    if max_output is None:
        return options
    over = [name for name in MAX_TOKEN_FIELDS if _count(options.get(name)) > max_output]
    return {**options, **dict.fromkeys(over, max_output)} if over else options


def _over(asked: dict[str, Any], stored: Mapping[str, Any]) -> dict[str, Any]:
    if any(asked.get(name) is not None for name in MAX_TOKEN_FIELDS):
        stored = {name: value for name, value in stored.items() if name not in MAX_TOKEN_FIELDS}
    said = {name: value for name, value in asked.items() if value is not None or name not in stored}
    return {**stored, **said}


def _count(value: object) -> int:
    """`value` as a token count to compare, 0 when it is not one."""
    return value if isinstance(value, int) and not isinstance(value, bool) else 0
