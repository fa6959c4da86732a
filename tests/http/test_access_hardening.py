"""What the access layer refuses, and lets through, after the hardening of issue 22.

A Host header is a host and an optional port, nothing more; a write's JSON
type is read by one rule in front of the handlers and in them (so a type let
through is also read); a request carrying two different credentials is
refused rather than read by whichever header comes first.
"""

from __future__ import annotations

import http.client
from collections.abc import Iterator
from pathlib import Path

import httpx
import orjson
import pytest

from tests.http.helpers import hello
from tests.http.key_helpers import keyed_bench, make_key, refused
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream


@pytest.fixture
def keyed(tmp_path: Path, upstream: FakeUpstream) -> Iterator[Gateway]:
    with keyed_bench(tmp_path / "home", upstream) as server:
        yield server


def _status_with_host(gateway: Gateway, host: str) -> tuple[int, bytes]:
    """GET /v1/models sending `host` exactly as written (httpx would refuse some of these)."""
    connection = http.client.HTTPConnection("127.0.0.1", gateway.port, timeout=10)
    try:
        connection.putrequest("GET", "/v1/models", skip_host=True)
        connection.putheader("Host", host)
        connection.endheaders()
        reply = connection.getresponse()
        return reply.status, reply.read()
    finally:
        connection.close()


# ---- the Host header -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "host",
    [
        "127.0.0.1:{port}@evil.example",
        "127.0.0.1:{port}/health?x=",
        "127.0.0.1:{port} evil.example",
        "127.0.0.1:",
        "evil.example@127.0.0.1:{port}",
        "[::1]:{port}@evil.example",
        "127.0.0.1:99999",
        "[127.0.0.1]:{port}",
    ],
    ids=[
        "userinfo after",
        "path and query",
        "space",
        "empty port",
        "userinfo",
        "v6 userinfo",
        "port",
        "v4 bracketed",
    ],
)
def test_a_host_header_that_is_more_than_a_host_and_port_is_403(
    bench: Gateway, upstream: FakeUpstream, host: str
):
    status, body = _status_with_host(bench, host.format(port=bench.port))
    assert status == 403, body
    assert b"PANELGATE_ALLOWED_HOSTS" in body
    assert b"bench/core" not in body


@pytest.mark.parametrize(
    "host", ["127.0.0.1:{port}", "127.0.0.1", "[::1]", "LOCALHOST:{port}", "10.0.0.7:8080"]
)
def test_a_plain_host_and_port_is_still_answered(bench: Gateway, host: str):
    status, body = _status_with_host(bench, host.format(port=bench.port))
    assert status == 200 and b"bench/core" in body


# ---- JSON types ------------------------------------------------------------------------------


CHAT = orjson.dumps(hello())


@pytest.mark.parametrize("media", ["application/x+json", "application/vnd.api+json; charset=utf-8"])
def test_a_json_suffix_type_is_read_by_a_panel_route(bench: Gateway, upstream: FakeUpstream, media: str):
    response = httpx.post(
        f"{bench.url}/v1/chat/completions", content=CHAT, headers={"Content-Type": media}, timeout=60
    )
    assert response.status_code == 200, response.text
    assert "answer from m1" in response.json()["choices"][0]["message"]["content"]


@pytest.mark.parametrize("media", ["application/+json", "text/json", "application/json-seq"])
def test_a_type_that_is_not_json_is_415_before_a_panel_is_seated(
    bench: Gateway, upstream: FakeUpstream, media: str
):
    response = httpx.post(f"{bench.url}/v1/chat/completions", content=CHAT, headers={"Content-Type": media})
    assert "application/json" in refused(response, 415)
    assert upstream.requests == []


def test_a_json_suffix_type_is_read_by_an_admin_route(bench: Gateway):
    response = httpx.post(
        f"{bench.url}/api/keys", content=b'{"name": "typed"}', headers={"Content-Type": "application/x+json"}
    )
    assert response.status_code == 201, response.text
    assert [key["name"] for key in bench.api("GET", "/api/keys")["keys"]] == ["typed"]


def test_a_type_that_is_not_json_is_415_on_an_admin_route(bench: Gateway):
    response = httpx.post(
        f"{bench.url}/api/keys", content=b'{"name": "typed"}', headers={"Content-Type": "application/+json"}
    )
    assert "application/json" in refused(response, 415)
    assert bench.api("GET", "/api/keys")["keys"] == []


# ---- two credentials -------------------------------------------------------------------------


def test_two_different_keys_are_400_naming_the_headers_in_the_callers_shape(
    keyed: Gateway, upstream: FakeUpstream
):
    key = make_key(keyed)
    response = httpx.post(
        f"{keyed.url}/v1/messages",
        json={"model": "bench/core", "max_tokens": 100, "messages": [{"role": "user", "content": "hi"}]},
        headers={"Authorization": "Bearer sk-placeholder", "x-api-key": key},
    )
    assert response.status_code == 400, response.text
    body = response.json()
    assert body["type"] == "error" and body["error"]["type"] == "invalid_request_error"
    assert "Authorization and x-api-key" in body["error"]["message"]
    assert key not in response.text and "sk-placeholder" not in response.text
    assert upstream.requests == []


def test_a_gemini_header_and_query_key_that_differ_are_400(keyed: Gateway, upstream: FakeUpstream):
    key, other = make_key(keyed), make_key(keyed, name="other")
    response = httpx.post(
        f"{keyed.url}/v1beta/models/bench/core:generateContent",
        params={"key": other},
        json={"contents": [{"role": "user", "parts": [{"text": "hi"}]}]},
        headers={"x-goog-api-key": key},
    )
    assert response.status_code == 400, response.text
    assert "x-goog-api-key and ?key=" in response.json()["error"]["message"]
    assert upstream.requests == []


def test_on_loopback_a_placeholder_cannot_hide_a_scoped_key(bench: Gateway, upstream: FakeUpstream):
    bench.save_collection("other", ["m1", "m2"], description="the other bench")
    scoped = make_key(bench, collections=["core"])
    response = httpx.post(
        f"{bench.url}/v1/chat/completions",
        json=hello("bench/other"),
        headers={"Authorization": "Bearer unused", "x-api-key": scoped},
    )
    assert "Authorization and x-api-key" in refused(response, 400)
    assert upstream.requests == []


def test_the_same_key_in_two_headers_is_one_credential(keyed: Gateway, upstream: FakeUpstream):
    key = make_key(keyed)
    response = httpx.post(
        f"{keyed.url}/v1/chat/completions",
        json=hello(),
        headers={"Authorization": f"Bearer {key}", "x-api-key": key},
        timeout=60,
    )
    assert response.status_code == 200, response.text
