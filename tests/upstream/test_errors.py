"""The error taxonomy: a refusal's status and wording decide its kind; messages are one safe line."""

from __future__ import annotations

import pytest

from panelgate.upstream import classify, redact

CASES = [
    (401, "Incorrect API key provided", "signin"),
    (403, "Your token has expired, please sign in again", "signin"),
    (400, "API key expired. Please renew the API key.", "signin"),
    (402, "", "paywalled"),
    (400, "This model requires a paid plan", "paywalled"),
    (429, "You exceeded your current quota, please check your plan and billing details", "paywalled"),
    (403, "Payment required: insufficient credits", "paywalled"),
    (403, "You are not allowed to use this model", "entitlement"),
    (403, "This model is not enabled for your plan", "entitlement"),
    (403, "", "other"),
    (404, "", "structural"),
    (400, "The model `llama-2` has been decommissioned", "structural"),
    (400, "model not found: gpt-9", "structural"),
    (429, "", "capacity"),
    (503, "rate limit reached for requests", "capacity"),
    (408, "", "timeout"),
    (504, "", "timeout"),
    (None, "the request timed out", "timeout"),
    (500, "internal server error", "other"),
    (400, "parameter `foo` is not allowed", "other"),
]


@pytest.mark.parametrize(("status", "text", "kind"), CASES)
def test_refusal_is_classified_by_status_and_wording(status: int | None, text: str, kind: str):
    assert classify(status, text) == kind


def test_redacted_message_is_one_line_of_at_most_500_characters():
    message = redact("first line\nsecond line\t" + "word " * 300)
    assert "\n" not in message and len(message) <= 500 and message.startswith("first line second line")


def test_redaction_removes_secrets_tokens_queries_and_base64():
    image = "iVBORw0KGgo" + "A" * 200
    message = redact(
        f"bad key sk-live-abcdefghijkl and Bearer tok.en-123 at https://x.test/v1?key=hidden with {image}",
        secrets=["my-own-secret"],
    ) + redact("echo my-own-secret", secrets=["my-own-secret"])
    for leaked in ("abcdefghijkl", "tok.en-123", "hidden", image[:40], "my-own-secret"):
        assert leaked not in message
    assert "https://x.test/v1?[query]" in message
