"""Gateway keys on the gateway routes: who may call, on which collections, how often.

With `PANELGATE_REQUIRE_KEYS=1` every model API and `/bench/...` route asks for a
`pgk_` key, however the client's SDK sends it; a scoped key sees and uses only its
collections (asking, listing, judging, reading back); an rpm limit holds across
gateway processes. Keys and the admin token never stand in for each other.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anthropic
import httpx
import openai
import pytest
from google import genai
from google.genai import errors, types

from tests.http.helpers import hello
from tests.http.key_helpers import ADMIN_TOKEN, get, keyed_bench, make_key, post, refused, revoked_key
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream

UNKNOWN = "pgk_" + "A" * 43


@pytest.fixture
def keyed(tmp_path: Path, upstream: FakeUpstream) -> Iterator[Gateway]:
    with keyed_bench(tmp_path / "home", upstream) as server:
        yield server


# ---- 401 -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("presented", "says"),
    [
        (lambda g: None, "no gateway key was sent"),
        (lambda g: "sk-not-a-gateway-key", "not a gateway key"),
        (lambda g: UNKNOWN, "not known here"),
        (revoked_key, "revoked"),
    ],
    ids=["missing", "malformed", "unknown", "revoked"],
)
def test_a_bad_key_is_401_saying_what_is_wrong(
    keyed: Gateway, upstream: FakeUpstream, presented: Any, says: str
):
    response = post(keyed, "/v1/chat/completions", hello(), presented(keyed))
    assert says in refused(response, 401)
    assert response.headers["www-authenticate"].startswith("Bearer ")
    assert upstream.requests == []


def test_each_bad_key_gets_its_own_message(keyed: Gateway):
    keys = [None, "sk-not-a-gateway-key", UNKNOWN, revoked_key(keyed)]
    messages = {refused(get(keyed, "/v1/models", key), 401) for key in keys}
    assert len(messages) == 4


def test_a_401_reaches_each_sdk_as_its_authentication_error(keyed: Gateway, upstream: FakeUpstream):
    chat = keyed.keep(openai.OpenAI(base_url=f"{keyed.url}/v1", api_key="unused", max_retries=0))
    with pytest.raises(openai.AuthenticationError, match="not a gateway key"):
        chat.chat.completions.create(model="bench/core", messages=[{"role": "user", "content": "hi"}])
    claude = keyed.keep(anthropic.Anthropic(base_url=keyed.url, api_key=UNKNOWN, max_retries=0))
    with pytest.raises(anthropic.AuthenticationError, match="not known here"):
        claude.messages.create(
            model="bench/core", max_tokens=50, messages=[{"role": "user", "content": "hi"}]
        )
    assert upstream.requests == []


# ---- how a key is sent -----------------------------------------------------------------------


def test_a_key_works_as_bearer_through_the_openai_sdk(keyed: Gateway, upstream: FakeUpstream):
    chat = keyed.keep(openai.OpenAI(base_url=f"{keyed.url}/v1", api_key=make_key(keyed), max_retries=0))
    reply = chat.chat.completions.create(model="bench/core", messages=[{"role": "user", "content": "hi"}])
    assert "answer from m1" in (reply.choices[0].message.content or "")


def test_a_key_works_as_x_api_key_through_the_anthropic_sdk(keyed: Gateway, upstream: FakeUpstream):
    claude = keyed.keep(anthropic.Anthropic(base_url=keyed.url, api_key=make_key(keyed), max_retries=0))
    reply = claude.messages.create(
        model="bench/core", max_tokens=50, messages=[{"role": "user", "content": "hi"}]
    )
    assert "answer from m2" in "".join(block.text for block in reply.content if block.type == "text")


def test_a_key_works_as_x_goog_api_key_through_the_genai_sdk(keyed: Gateway, upstream: FakeUpstream):
    options = types.HttpOptions(
        base_url=keyed.url, api_version="v1beta", retry_options=types.HttpRetryOptions(attempts=1)
    )
    with genai.Client(api_key=make_key(keyed), http_options=options) as gemini:
        reply = gemini.models.generate_content(model="bench/core", contents="hi")
        assert "answer from m3" in (reply.text or "")
    with genai.Client(api_key="wrong", http_options=options) as gemini:
        with pytest.raises(errors.ClientError) as caught:
            gemini.models.generate_content(model="bench/core", contents="hi")
        assert caught.value.code == 401


def test_a_key_in_the_query_string_works_on_the_gemini_routes_only(keyed: Gateway, upstream: FakeUpstream):
    key = make_key(keyed)
    gemini = {"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}
    assert post(keyed, f"/v1beta/models/bench/core:generateContent?key={key}", gemini).status_code == 200
    assert get(keyed, f"/v1beta/models?key={key}").status_code == 200
    chat = post(keyed, f"/v1/chat/completions?key={key}", hello())
    assert "no gateway key was sent" in refused(chat, 401)
    listed = get(keyed, f"/v1/models?key={key}")  # Gemini's credential: google-genai's `/v1/` listing
    assert listed.status_code == 200 and "models" in listed.json()


def test_on_loopback_a_placeholder_works_but_a_revoked_key_does_not(bench: Gateway, upstream: FakeUpstream):
    assert post(bench, "/v1/chat/completions", hello(), "unused").status_code == 200
    assert post(bench, "/v1/chat/completions", hello()).status_code == 200
    upstream.reset()
    response = post(bench, "/v1/chat/completions", hello(), revoked_key(bench))
    assert "revoked" in refused(response, 401)
    assert upstream.requests == []


# ---- the admin token and gateway keys stay apart ---------------------------------------------


def test_the_admin_token_does_not_open_the_gateway_routes(keyed: Gateway, upstream: FakeUpstream):
    assert "not a gateway key" in refused(post(keyed, "/v1/chat/completions", hello(), ADMIN_TOKEN), 401)
    assert get(keyed, "/bench/record?collection=core", ADMIN_TOKEN).status_code == 401
    assert upstream.requests == []


@pytest.mark.parametrize("header", ["Authorization", "x-api-key", "x-goog-api-key"])
def test_a_gateway_key_does_not_open_the_admin_api(keyed: Gateway, header: str):
    key = make_key(keyed)
    value = f"Bearer {key}" if header == "Authorization" else key
    response = httpx.get(f"{keyed.url}/api/keys", headers={header: value})
    assert response.status_code == 401
    assert key[-4:] not in response.text
    made = httpx.post(f"{keyed.url}/api/keys", json={"name": "escalated"}, headers={header: value})
    assert made.status_code == 401
    assert [k["name"] for k in keyed.api("GET", "/api/keys")["keys"]] == ["caller"]


# ---- rpm -------------------------------------------------------------------------------------


def _early_in_a_minute() -> None:
    """Wait out the last seconds of a clock minute, so a test's requests fall in one minute."""
    into = time.time() % 60
    if into > 50:
        time.sleep(60.5 - into)


def test_the_request_over_a_keys_rpm_is_429_with_retry_after(keyed: Gateway, upstream: FakeUpstream):
    key = make_key(keyed, rpm=2)
    _early_in_a_minute()
    assert [get(keyed, "/v1/models", key).status_code for _ in range(2)] == [200, 200]
    over = post(keyed, "/v1/chat/completions", hello(), key)
    assert "2 requests a minute" in refused(over, 429)
    assert 1 <= int(over.headers["retry-after"]) <= 60
    assert upstream.requests == []
    other = make_key(keyed, name="other", rpm=2)
    assert get(keyed, "/v1/models", other).status_code == 200, "other keys are not held"


def test_a_keys_rpm_holds_across_two_gateway_processes(keyed: Gateway, upstream: FakeUpstream):
    key = make_key(keyed, rpm=2)
    second = Gateway(keyed.home, env=keyed.extra_env, in_process=False).start()
    try:
        _early_in_a_minute()
        assert get(keyed, "/v1/models", key).status_code == 200
        assert get(second, "/v1/models", key).status_code == 200
        for gateway in (keyed, second):
            over = get(gateway, "/v1/models", key)
            assert over.status_code == 429 and int(over.headers["retry-after"]) >= 1
    finally:
        second.close()
