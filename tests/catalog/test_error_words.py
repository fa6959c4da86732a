"""Reading the ceiling an upstream's refusal states."""

from __future__ import annotations

import pytest

from panelgate.catalog.error_words import stated_limits


@pytest.mark.parametrize(
    ("words", "window"),
    [
        (
            "`up` answered HTTP 400: This model's maximum context length is 8192 tokens. You sent 9000",
            8192,
        ),
        ("prompt is too long: 210000 tokens > 200000 maximum", 200_000),
        ("The input token count (40000) exceeds the maximum number of tokens allowed (32768).", 32_768),
        ("Prompt contains 40000 tokens, too large for model with 32,768 maximum context length", 32_768),
        ("This endpoint's maximum context length is 131072 tokens", 131_072),
        ("exceeds the context window of 16384 tokens", 16_384),
    ],
)
def test_each_providers_wording_of_a_context_window(words: str, window: int) -> None:
    assert stated_limits(words) == {"context_window": window}


def test_an_output_limit() -> None:
    words = "max_tokens is too large: 10000. This model supports at most 4096 completion tokens"
    assert stated_limits(words) == {"max_output": 4096}


@pytest.mark.parametrize(
    "words",
    [
        "Rate limit reached, try again in 20s",
        "maximum context length is 12 tokens",
        "internal server error",
        "",
    ],
)
def test_words_that_state_no_ceiling_teach_nothing(words: str) -> None:
    assert stated_limits(words) == {}
