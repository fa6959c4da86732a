"""A wrong method on a gateway path is a 405 in the caller's API shape, with a code that says 405."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream


def _openai(body: dict[str, Any]) -> str:
    assert body["error"]["code"] == "405" and body["error"]["type"] == "invalid_request_error"
    return str(body["error"]["message"])


def _anthropic(body: dict[str, Any]) -> str:
    assert body["type"] == "error" and body["error"]["type"] == "invalid_request_error"
    return str(body["error"]["message"])


def _gemini(body: dict[str, Any]) -> str:
    assert body["error"]["code"] == 405 and body["error"]["status"] == "INVALID_ARGUMENT"
    return str(body["error"]["message"])


def _ollama(body: dict[str, Any]) -> str:
    assert set(body) == {"error"}
    return str(body["error"])


@pytest.mark.parametrize(
    ("method", "path", "allowed", "read"),
    [
        ("GET", "/v1/chat/completions", "POST", _openai),
        ("GET", "/chat/completions", "POST", _openai),
        ("GET", "/v1/completions", "POST", _openai),
        ("GET", "/v1/responses", "POST", _openai),
        ("GET", "/v1/messages", "POST", _anthropic),
        ("PUT", "/v1beta/models", "GET", _gemini),
        ("GET", "/api/chat", "POST", _ollama),
    ],
)
def test_a_wrong_method_is_405_in_the_apis_shape_naming_the_right_one(
    bench: Gateway,
    upstream: FakeUpstream,
    method: str,
    path: str,
    allowed: str,
    read: Callable[[dict[str, Any]], str],
):
    response = httpx.request(method, f"{bench.url}{path}", timeout=30)
    assert response.status_code == 405, response.text
    assert response.headers["allow"] == allowed
    message = read(response.json())
    assert f"{method} is not allowed" in message and f"it takes {allowed}" in message
