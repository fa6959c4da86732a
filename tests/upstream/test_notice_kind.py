"""Which 200 answers are a provider's quota or credit notice rather than an answer."""

from __future__ import annotations

import pytest

from panelgate.upstream.errors import NOTICE_MAX_CHARS, notice_kind


@pytest.mark.parametrize(
    ("answer", "kind"),
    [
        ("Insufficient credits", "paywalled"),
        ("Your credit balance is too low to access the Anthropic API.", "paywalled"),
        ("402 Payment Required", "paywalled"),
        ("You exceeded your current quota, please check your plan and billing details.", "paywalled"),
        ("Quota exceeded for this model. Try again tomorrow.", "capacity"),
        ("  Rate limit reached for requests  ", "capacity"),
        ("Resource has been exhausted (e.g. check quota).", "capacity"),
    ],
)
def test_a_short_notice_is_read_as_its_kind(answer: str, kind: str) -> None:
    assert notice_kind(answer) == kind


@pytest.mark.parametrize(
    "answer",
    [
        "Quota: the share of something each person is given.",
        "Check the billing page of your account.",
        "It says: rate limit reached.\n\nThat means you sent too many requests; wait and retry.",
        "```\nerror: insufficient credits\n```",
        "A rate limit reached is a 429. " + "Here is why and what to do about it. " * 10,
        "",
    ],
)
def test_an_answer_that_is_more_than_a_notice_is_an_answer(answer: str) -> None:
    assert notice_kind(answer) is None


def test_the_length_limit_is_what_the_docs_say() -> None:
    assert notice_kind("rate limit reached " + "." * (NOTICE_MAX_CHARS - 19)) == "capacity"
    assert notice_kind("rate limit reached " + "." * (NOTICE_MAX_CHARS - 18)) is None
