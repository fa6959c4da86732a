"""Rate limits as each provider style states them, read into absolute limits and resets."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from panelgate.core.rate_limits import parse_duration, read_headers, read_refusal

NOW = datetime(2026, 11, 30, 12, 0, 0, tzinfo=UTC)
DAILY = "GenerateRequestsPerDayPerProjectPerModel-FreeTier"


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("6m0s", 360.0), ("1.5s", 1.5), ("20ms", 0.02), ("1h2m3s", 3723.0), ("59.999s", 59.999), ("7", 7.0)],
)
def test_durations(text: str, seconds: float):
    assert parse_duration(text) == pytest.approx(seconds)


@pytest.mark.parametrize("text", ["", "soon", "5x", "1m soon"])
def test_durations_that_are_not(text: str):
    assert parse_duration(text) is None


def test_openai_style_headers():
    stated = read_headers(
        {
            "x-ratelimit-limit-requests": "500",
            "x-ratelimit-remaining-requests": "499",
            "x-ratelimit-reset-requests": "120ms",
            "x-ratelimit-limit-tokens": "30000",
            "x-ratelimit-remaining-tokens": "0",
            "x-ratelimit-reset-tokens": "6m0s",
        },
        NOW,
    )
    assert stated is not None and stated.style == "openai"
    requests, tokens = stated.window("requests"), stated.window("tokens")
    assert (requests.limit, requests.remaining) == (500, 499)
    assert requests.resets_at == NOW + timedelta(milliseconds=120)
    assert tokens.exhausted and tokens.resets_at == NOW + timedelta(minutes=6)
    assert stated.free_at(NOW) == NOW + timedelta(minutes=6)


def test_groq_style_headers_with_retry_after():
    stated = read_headers(
        {
            "X-RateLimit-Limit-Requests": "14400",
            "X-RateLimit-Remaining-Requests": "0",
            "X-RateLimit-Reset-Requests": "2m59.56s",
            "Retry-After": "2",
        },
        NOW,
    )
    assert stated.window("requests").resets_at == NOW + timedelta(seconds=179.56)
    assert stated.retry_at == NOW + timedelta(seconds=2)
    assert stated.free_at(NOW) == NOW + timedelta(seconds=179.56)


def test_anthropic_style_headers():
    stated = read_headers(
        {
            "anthropic-ratelimit-requests-limit": "50",
            "anthropic-ratelimit-requests-remaining": "0",
            "anthropic-ratelimit-requests-reset": "2026-11-30T12:00:30Z",
            "anthropic-ratelimit-input-tokens-limit": "40000",
            "anthropic-ratelimit-input-tokens-remaining": "39000",
            "anthropic-ratelimit-input-tokens-reset": "2026-11-30T12:00:01Z",
            "retry-after": "30",
        },
        NOW,
    )
    assert stated.style == "anthropic"
    assert stated.window("requests").resets_at == NOW + timedelta(seconds=30)
    assert stated.window("input_tokens").remaining == 39000
    assert stated.free_at(NOW) == NOW + timedelta(seconds=30)


def test_openrouter_headers_and_429_body():
    reset_ms = int((NOW + timedelta(hours=3)).timestamp() * 1000)
    stated = read_headers(
        {"X-RateLimit-Limit": "20", "X-RateLimit-Remaining": "19", "X-RateLimit-Reset": str(reset_ms)}, NOW
    )
    assert stated.style == "openrouter" and stated.window("requests").resets_at == NOW + timedelta(hours=3)
    body = {
        "error": {
            "message": "Rate limit exceeded: free-models-per-day",
            "code": 429,
            "metadata": {
                "headers": {
                    "X-RateLimit-Limit": "50",
                    "X-RateLimit-Remaining": "0",
                    "X-RateLimit-Reset": str(reset_ms),
                }
            },
        }
    }
    refused = read_refusal(body, {}, NOW)
    assert refused.window("requests").limit == 50 and refused.free_at(NOW) == NOW + timedelta(hours=3)


def test_gemini_429_body():
    body = {
        "error": {
            "code": 429,
            "status": "RESOURCE_EXHAUSTED",
            "details": [
                {
                    "@type": "type.googleapis.com/google.rpc.QuotaFailure",
                    "violations": [
                        {
                            "quotaMetric": "generate_content_free_tier_requests",
                            "quotaId": DAILY,
                            "quotaValue": "50",
                        }
                    ],
                },
                {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "27s"},
            ],
        }
    }
    refused = read_refusal(body, {}, NOW)
    assert refused.style == "gemini" and refused.retry_at == NOW + timedelta(seconds=27)
    daily = refused.window("requests")
    assert (daily.limit, daily.remaining, daily.quota) == (
        50,
        0,
        "GenerateRequestsPerDayPerProjectPerModel-FreeTier",
    )
    assert daily.resets_at == datetime(2026, 12, 1, 8, 0, tzinfo=UTC)  # midnight in California (PST)


def test_headers_that_state_nothing():
    assert read_headers({"content-type": "application/json"}, NOW) is None
    assert read_refusal("not json", {}, NOW) is None
