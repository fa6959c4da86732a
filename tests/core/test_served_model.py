"""What counts as the same model when a reply names the model that answered."""

from __future__ import annotations

import pytest

from panelgate.core.served_model import MAX_SHOWN, served_as


@pytest.mark.parametrize(
    ("asked", "answered"),
    [
        ("gpt-4o", "gpt-4o-2024-08-06"),
        ("gpt-3.5-turbo", "gpt-3.5-turbo-0125"),
        ("claude-3-5-sonnet-latest", "claude-3-5-sonnet-20241022"),
        ("claude-3-5-sonnet", "claude-3-5-sonnet@20240620"),
        ("mistral-large-latest", "mistral-large-2411"),
        ("gemini-1.5-pro", "gemini-1.5-pro-002"),
        ("command-r", "command-r-08-2024"),
        ("meta-llama/llama-3.3-70b-instruct:free", "meta-llama/llama-3.3-70b-instruct"),
        ("gpt-4o", "openai/gpt-4o"),
        ("GPT-4o", "gpt-4o"),
        ("gpt-4o", ""),
    ],
)
def test_a_dated_tagged_or_prefixed_name_of_the_asked_model_is_no_swap(asked: str, answered: str) -> None:
    assert served_as(asked, answered) is None


@pytest.mark.parametrize(
    ("asked", "answered"),
    [
        ("gpt-4o", "gpt-4o-mini-2024-07-18"),
        ("llama-3.1-70b-instruct", "llama-3.1-8b-instruct"),
        ("claude-3-5-sonnet-latest", "claude-3-haiku-20240307"),
        ("qwen-2.5-72b", "deepseek-v3"),
    ],
)
def test_another_model_is_a_swap_named_as_the_reply_named_it(asked: str, answered: str) -> None:
    assert served_as(asked, answered) == answered


def test_a_very_long_served_name_is_cut() -> None:
    assert served_as("m1", "x" * 1000) == "x" * MAX_SHOWN
