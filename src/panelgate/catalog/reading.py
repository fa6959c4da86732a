"""Reading a catalog's or a listing's words for a model into our fact names.

models.dev states a model per provider (`limit.context`, `limit.output`,
`modalities.input`, `tool_call`, `structured_output`, `reasoning`, `cost` in
dollars per million tokens). OpenRouter's list, and every endpoint listing
shaped like it, states `context_length`, `top_provider.max_completion_tokens`,
`architecture.input_modalities`, `supported_parameters` and `pricing` in
dollars per *token* (as text). Other listings say the same things under
other names (`context_window` on Groq, `max_context_length` and
`capabilities` on Mistral, `max_model_len` on vLLM, `pricing.input` in
dollars per million on Together); each is read where it is unambiguous. A
fact a source does not state is left out, never guessed: an absent price is
unknown, not free.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

PER_TOKEN_TO_PER_MILLION = 1_000_000


def models_dev_facts(model: Mapping[str, Any]) -> dict[str, Any]:
    limit = _mapping(model.get("limit"))
    modalities = _mapping(model.get("modalities"))
    cost = _mapping(model.get("cost"))
    inputs = modalities.get("input")
    facts: dict[str, Any] = {
        "context_window": _count(limit.get("context")),
        "max_output": _count(limit.get("output")),
        "vision": ("image" in inputs) if isinstance(inputs, list) else None,
        "tools": _flag(model.get("tool_call")),
        "structured_output": _flag(model.get("structured_output")),
        "reasoning": _flag(model.get("reasoning")),
        "price": _price(cost.get("input"), cost.get("output"), 1),
    }
    return {fact: value for fact, value in facts.items() if value is not None}


def listing_facts(entry: Mapping[str, Any]) -> dict[str, Any]:
    """What one entry of a `/models` listing (OpenRouter's public list included) states."""
    top = _mapping(entry.get("top_provider"))
    architecture = _mapping(entry.get("architecture"))
    capabilities = _mapping(entry.get("capabilities"))
    parameters = entry.get("supported_parameters")
    features = entry.get("supported_features")
    inputs = (
        architecture.get("input_modalities")
        or entry.get("input_modalities")
        or _mapping(entry.get("modalities")).get("input")
    )
    facts: dict[str, Any] = {
        "context_window": _first_count(
            entry, "context_length", "context_window", "max_context_length", "max_model_len"
        )
        or _count(top.get("context_length")),
        "max_output": _first_count(entry, "max_completion_tokens", "max_output_tokens", "max_output_length")
        or _count(top.get("max_completion_tokens")),
        "vision": _any_of(
            ("image" in inputs) if isinstance(inputs, list) else None,
            _flag(capabilities.get("vision")),
            _listed(features, "vision"),
        ),
        "tools": _any_of(
            _listed(parameters, "tools"),
            _flag(capabilities.get("function_calling")),
            _listed(features, "tools"),
        ),
        "structured_output": _any_of(
            _listed(parameters, "structured_outputs"), _listed(features, "json_schema")
        ),
        "reasoning": _any_of(_listed(parameters, "reasoning"), _listed(features, "reasoning")),
        "price": _listing_price(_mapping(entry.get("pricing"))),
    }
    return {fact: value for fact, value in facts.items() if value is not None}


def _listing_price(pricing: Mapping[str, Any]) -> dict[str, float] | None:
    if "prompt" in pricing or "completion" in pricing:  # OpenRouter: dollars per token, as text
        return _price(pricing.get("prompt"), pricing.get("completion"), PER_TOKEN_TO_PER_MILLION)
    return _price(pricing.get("input"), pricing.get("output"), 1)


def _price(given_in: Any, given_out: Any, scale: int) -> dict[str, float] | None:
    parts = [_number(given_in), _number(given_out)]
    if parts[0] is None or parts[1] is None or parts[0] < 0 or parts[1] < 0:
        return None  # unknown, or OpenRouter's -1 for a router whose price depends on the model it picks
    return {"input": round(parts[0] * scale, 6), "output": round(parts[1] * scale, 6)}


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return None
    return None


def _count(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if value != value or value < 1 or value > 10**9 or int(value) != value:
        return None
    return int(value)


def _first_count(entry: Mapping[str, Any], *names: str) -> int | None:
    return next((count for name in names if (count := _count(entry.get(name))) is not None), None)


def _flag(value: Any) -> bool | None:
    return value if isinstance(value, bool) else None


def _listed(items: Any, name: str) -> bool | None:
    """Whether a list of supported things names `name` (None when there is no such list)."""
    if not isinstance(items, list):
        return None
    return name in items


def _any_of(*answers: bool | None) -> bool | None:
    """True when any source says so, False when some say no and none yes, None when none says."""
    said = [answer for answer in answers if answer is not None]
    return any(said) if said else None


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}
