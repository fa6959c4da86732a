"""Which agent session a request names: each client's header or body field, or none."""

from __future__ import annotations

import json

import pytest

from panelgate.formats.client_session import client_session


@pytest.mark.parametrize(
    "header", ["x-claude-code-session-id", "session-id", "x-session-id", "x-session-affinity"]
)
def test_each_clients_session_header_names_the_session(header: str):
    assert client_session({header: " abc-123 "}, {}) == "abc-123"


def test_claude_codes_header_wins_over_its_metadata():
    body = {"metadata": {"user_id": json.dumps({"session_id": "from-body"})}}
    assert client_session({"x-claude-code-session-id": "from-header"}, body) == "from-header"
    assert client_session({}, body) == "from-body"


def test_a_responses_prompt_cache_key_names_the_session():
    assert client_session({}, {"prompt_cache_key": "thread-9"}) == "thread-9"


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"metadata": {"user_id": "plain-user-id"}},
        {"metadata": {"user_id": "{not json"}},
        {"metadata": {"user_id": json.dumps(["session_id"])}},
        {"metadata": "x"},
        {"prompt_cache_key": 7},
        {"prompt_cache_key": "   "},
        {"prompt_cache_key": "x" * 201},
    ],
)
def test_nothing_usable_names_no_session(body: dict[str, object]):
    assert client_session({"session-id": ""}, body) is None
