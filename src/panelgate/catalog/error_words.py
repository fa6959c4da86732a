"""What an upstream's refusal says about a model's ceilings, read from its words.

Providers refuse a prompt that is too long with a sentence naming the
model's real limit, and that limit is often smaller than a catalog claims
(a provider serving a model with a shorter window than its maker's).
The phrasings read here:

- OpenAI, vLLM, OpenRouter: "This model's maximum context length is 8192 tokens"
- Anthropic: "prompt is too long: 210000 tokens > 200000 maximum"
- Gemini: "The input token count (40000) exceeds the maximum number of tokens allowed (32768)"
- Mistral: "too large for model with 32768 maximum context length"
- any: "context window of 8192 tokens", "context length is 8192"
- the output limit: "supports at most 4096 completion tokens"

Numbers under 512 are ignored (a limit that small is a misreading of some
other number), and so is a message naming none of these.
"""

from __future__ import annotations

import re

SMALLEST = 512
LARGEST = 100_000_000
_NUMBER = r"(\d[\d,]*)"
_CONTEXT = tuple(
    re.compile(pattern, re.IGNORECASE)
    for pattern in (
        rf"maximum context length is {_NUMBER}",
        rf"tokens? > {_NUMBER} maximum",
        rf"exceeds the maximum number of tokens allowed \({_NUMBER}\)",
        rf"{_NUMBER} maximum context length",
        rf"context (?:length|window) (?:of|is) {_NUMBER}",
    )
)
_OUTPUT = (re.compile(rf"supports at most {_NUMBER} completion tokens", re.IGNORECASE),)


def stated_limits(text: str) -> dict[str, int]:
    """The ceilings `text` states: `context_window` and/or `max_output`."""
    found: dict[str, int] = {}
    for fact, patterns in (("context_window", _CONTEXT), ("max_output", _OUTPUT)):
        for pattern in patterns:
            match = pattern.search(text)
            if match is None:
                continue
            number = int(match.group(1).replace(",", ""))
            if SMALLEST <= number <= LARGEST:
                found[fact] = number
                break
    return found
