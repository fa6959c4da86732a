"""What every request must be before it is read: a Host this gateway answers to, a same-origin
JSON write of a declared size, and CORS only for the listed origins on the gateway routes.

These are the checks that keep a web page in the browser from driving a gateway on
loopback (DNS rebinding, form posts, cross-site fetches). Each refusal comes back in
the caller's API shape and before any upstream is asked.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import arrange_bench
from tests.http.helpers import hello
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream

APP = "https://app.example"
PUBLIC = "https://bench.example.com"
TOKEN = "an-admin-token-of-some-length"
CAP = 4000
HTML_FORM = "application/x-www-form-urlencoded"


@pytest.fixture
def configured(tmp_path: Path, upstream: FakeUpstream) -> Iterator[Gateway]:
    """A bench on loopback with a CORS origin, an extra host name and a 4 kB body cap."""
    env = {
        "PANELGATE_ALLOWED_ORIGINS": APP,
        "PANELGATE_ALLOWED_HOSTS": "gateway.lan",
        "PANELGATE_MAX_BODY_BYTES": str(CAP),
    }
    server = Gateway(tmp_path / "home", env=env).start()
    try:
        yield arrange_bench(server, upstream)
    finally:
        server.close()


@pytest.fixture
def proxied(tmp_path: Path, upstream: FakeUpstream) -> Iterator[Gateway]:
    """A bench on loopback behind a proxy: its public URL, an admin token (the guard's `api` sends it)."""
    env = {"PANELGATE_PUBLIC_URL": PUBLIC, "PANELGATE_ADMIN_TOKEN": TOKEN}
    server = Gateway(tmp_path / "home", env=env).start()
    try:
        yield arrange_bench(server, upstream)
    finally:
        server.close()


def _post(gateway: Gateway, path: str, body: Any = None, **headers: str) -> httpx.Response:
    return httpx.post(f"{gateway.url}{path}", json=body, headers=headers, timeout=60)


def _openai_error(response: httpx.Response, status: int) -> str:
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert error["type"] and error["code"] == str(status)
    return str(error["message"])


def _admin_error(response: httpx.Response, status: int) -> str:
    assert response.status_code == status, response.text
    assert set(response.json()["error"]) == {"message", "field"}
    return str(response.json()["error"]["message"])


def _raw(gateway: Gateway, head: bytes, body: bytes = b"") -> tuple[int, bytes]:
    """Send bytes as they are (headers httpx would refuse to send); the reply's status and bytes."""
    with socket.create_connection(("127.0.0.1", gateway.port), timeout=10) as connection:
        connection.sendall(head + b"\r\n\r\n" + body)
        reply = b""
        while b"\r\n\r\n" not in reply:
            chunk = connection.recv(65536)
            if not chunk:
                break
            reply += chunk
    return int(reply.split(b" ", 2)[1]), reply


# ---- Host ------------------------------------------------------------------------------------


def test_a_rebinding_host_is_refused_before_any_upstream_call(bench: Gateway, upstream: FakeUpstream):
    response = _post(bench, "/v1/chat/completions", hello(), Host=f"evil.example:{bench.port}")
    assert "PANELGATE_ALLOWED_HOSTS" in _openai_error(response, 403)
    assert upstream.requests == []


@pytest.mark.parametrize("host", ["evil.example:{port}", "evil.example", "127.0.0.1.nip.io:{port}", ""])
def test_a_foreign_host_cannot_read_the_admin_api(bench: Gateway, upstream: FakeUpstream, host: str):
    response = httpx.get(f"{bench.url}/api/endpoints", headers={"Host": host.format(port=bench.port)})
    assert "PANELGATE_ALLOWED_HOSTS" in _admin_error(response, 403)
    assert upstream.url not in response.text


@pytest.mark.parametrize(
    "host", ["127.0.0.1:{port}", "localhost:{port}", "[::1]:{port}", "192.168.1.20:{port}"]
)
def test_loopback_names_and_ip_literals_are_answered(bench: Gateway, host: str):
    response = httpx.get(f"{bench.url}/v1/models", headers={"Host": host.format(port=bench.port)})
    assert response.status_code == 200
    assert "bench/core" in {model["id"] for model in response.json()["data"]}


@pytest.mark.parametrize("host", ["gateway.lan:{port}", "gateway.lan"])
def test_allowed_hosts_are_answered(configured: Gateway, host: str):
    response = httpx.get(f"{configured.url}/v1/models", headers={"Host": host.format(port=configured.port)})
    assert response.status_code == 200


def test_the_public_url_host_is_answered_and_asks_for_a_gateway_key(proxied: Gateway):
    """Behind a proxy every request comes from loopback, yet none is the machine's own."""
    public = {"Host": "bench.example.com"}
    refused = httpx.get(f"{proxied.url}/v1/models", headers=public)
    assert refused.status_code == 401, refused.text
    key = proxied.api("POST", "/api/keys", {"name": "laptop"}, expect=201)["key"]
    answered = httpx.get(f"{proxied.url}/v1/models", headers={**public, "Authorization": f"Bearer {key}"})
    assert answered.status_code == 200
    assert "bench/core" in {model["id"] for model in answered.json()["data"]}


@pytest.mark.parametrize(
    "setting", [("PANELGATE_PUBLIC_URL", PUBLIC), ("PANELGATE_TRUSTED_PROXIES", "127.0.0.1")]
)
def test_behind_a_proxy_without_an_admin_token_the_gateway_will_not_start(
    tmp_path: Path, setting: tuple[str, str]
):
    server = Gateway(tmp_path / "home", env=dict([setting]), in_process=False)
    with pytest.raises(RuntimeError):
        server.start()
    assert "behind a proxy" in server.log() and "PANELGATE_ADMIN_TOKEN" in server.log()


# ---- JSON writes -----------------------------------------------------------------------------


def test_a_text_plain_chat_post_is_415_in_the_openai_shape(bench: Gateway, upstream: FakeUpstream):
    response = httpx.post(
        f"{bench.url}/v1/chat/completions",
        content=b'{"model": "bench/core", "messages": [{"role": "user", "content": "hi"}]}',
        headers={"Content-Type": "text/plain"},
    )
    assert "application/json" in _openai_error(response, 415)
    assert upstream.requests == []


def test_a_form_post_to_the_admin_api_is_415_in_the_admin_shape(bench: Gateway):
    response = httpx.post(
        f"{bench.url}/api/keys", content=b"name=laptop", headers={"Content-Type": HTML_FORM}
    )
    assert "application/json" in _admin_error(response, 415)
    assert bench.api("GET", "/api/keys")["keys"] == []


def test_a_text_plain_post_is_415_even_where_the_route_reads_no_body(bench: Gateway):
    created = bench.api("POST", "/api/keys", {"name": "laptop"}, expect=201)
    revoke = f"{bench.url}/api/keys/{created['id']}/revoke"
    response = httpx.post(revoke, content=b"please", headers={"Content-Type": "text/plain"})
    _admin_error(response, 415)
    assert bench.api("GET", "/api/keys")["keys"][0]["revoked"] is False


@pytest.mark.parametrize(
    ("path", "read"),
    [
        ("/v1/messages", lambda body: body["error"]["message"] if body["type"] == "error" else None),
        ("/api/chat", lambda body: body["error"]),
        ("/v1beta/models/bench/core:generateContent", lambda body: body["error"]["message"]),
    ],
)
def test_a_text_plain_post_is_415_in_each_apis_shape(
    bench: Gateway, upstream: FakeUpstream, path: str, read: Any
):
    response = httpx.post(f"{bench.url}{path}", content=b"{}", headers={"Content-Type": "text/plain"})
    assert response.status_code == 415
    assert "application/json" in read(response.json())
    assert upstream.requests == []


@pytest.mark.parametrize("path", ["/api/chat", "/api/generate"])
@pytest.mark.parametrize("content_type", [None, HTML_FORM])
def test_an_untyped_ollama_post_from_a_page_is_415_even_from_an_allowed_origin(
    configured: Gateway, upstream: FakeUpstream, path: str, content_type: str | None
):
    """A page's form post needs no preflight, so only a program's (no `Origin`) may leave the type out."""
    headers = {"Origin": APP} if content_type is None else {"Origin": APP, "Content-Type": content_type}
    body = b'{"model": "bench/core", "prompt": "say hi", "messages": [], "stream": false}'
    response = httpx.post(f"{configured.url}{path}", content=body, headers=headers, timeout=30)
    assert response.status_code == 415 and "application/json" in response.json()["error"]
    assert upstream.requests == []


# ---- same origin -----------------------------------------------------------------------------


@pytest.mark.parametrize("origin", ["https://evil.example", "http://localhost:1", "null"])
def test_a_write_from_a_foreign_origin_is_403(bench: Gateway, upstream: FakeUpstream, origin: str):
    response = _post(bench, "/v1/chat/completions", hello(), Origin=origin)
    assert "PANELGATE_ALLOWED_ORIGINS" in _openai_error(response, 403)
    refused = _post(bench, "/api/keys", {"name": "from a page"}, Origin=origin)
    _admin_error(refused, 403)
    assert upstream.requests == [] and bench.api("GET", "/api/keys")["keys"] == []


def test_a_write_marked_cross_site_by_the_browser_is_403(bench: Gateway, upstream: FakeUpstream):
    response = _post(bench, "/v1/chat/completions", hello(), **{"Sec-Fetch-Site": "cross-site"})
    _openai_error(response, 403)
    assert upstream.requests == []


def test_a_write_from_the_gateways_own_page_goes_through(configured: Gateway, upstream: FakeUpstream):
    own = {"Origin": configured.url, "Sec-Fetch-Site": "same-origin"}
    assert _post(configured, "/api/keys", {"name": "from the dashboard"}, **own).status_code == 201
    assert _post(configured, "/v1/chat/completions", hello(), **own).status_code == 200


def test_a_write_from_the_public_urls_page_goes_through_the_proxy(proxied: Gateway):
    behind_proxy = _post(
        proxied,
        "/api/keys",
        {"name": "via proxy"},
        Origin=PUBLIC,
        Host="bench.example.com",
        Authorization=f"Bearer {TOKEN}",
    )
    assert behind_proxy.status_code == 201, behind_proxy.text


# ---- body size -------------------------------------------------------------------------------


def test_a_body_over_the_cap_is_413_before_anyone_is_asked(configured: Gateway, upstream: FakeUpstream):
    big = hello(messages=[{"role": "user", "content": "x" * CAP}])
    assert "URL" in _openai_error(_post(configured, "/v1/chat/completions", big), 413)
    _admin_error(_post(configured, "/api/keys", {"name": "x" * CAP}), 413)
    assert upstream.requests == [] and configured.api("GET", "/api/keys")["keys"] == []


@pytest.mark.parametrize("path", ["/v1/chat/completions", "/logout"])
def test_an_over_cap_content_length_is_refused_without_waiting_for_the_body(configured: Gateway, path: str):
    head = (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{configured.port}\r\n"
        "Content-Type: application/json\r\nContent-Length: 10000000"
    )
    status, reply = _raw(configured, head.encode(), b'{"model": ')
    assert status == 413 and b"larger than" in reply


@pytest.mark.parametrize("length", [b"ten", b"-5", b"1e3", b"\xb2"])
def test_a_content_length_that_is_not_a_number_is_400(bench: Gateway, upstream: FakeUpstream, length: bytes):
    head = (
        f"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1:{bench.port}\r\n"
        "Content-Type: application/json\r\nContent-Length: "
    ).encode() + length
    status, _ = _raw(bench, head, b"{}")
    assert status == 400
    assert upstream.requests == []


# ---- CORS ------------------------------------------------------------------------------------


def _preflight(gateway: Gateway, path: str, origin: str, **asked: str) -> httpx.Response:
    headers = {"Origin": origin, "Access-Control-Request-Method": "POST", **asked}
    return httpx.options(f"{gateway.url}{path}", headers=headers)


def test_a_preflight_from_an_allowed_origin_allows_the_sdks_headers(configured: Gateway):
    asked = "authorization, content-type, x-stainless-os, x-stainless-retry-count, x-stainless-lang"
    response = _preflight(
        configured, "/v1/chat/completions", APP, **{"Access-Control-Request-Headers": asked}
    )
    assert response.status_code == 204
    assert response.headers["access-control-allow-origin"] == APP
    assert "Origin" in response.headers["vary"]
    allowed = {h.strip().lower() for h in response.headers["access-control-allow-headers"].split(",")}
    assert allowed >= {"authorization", "content-type", "x-stainless-os", "x-stainless-retry-count"}
    assert "POST" in response.headers["access-control-allow-methods"]
    assert "access-control-allow-credentials" not in response.headers


def test_a_preflight_from_an_unlisted_origin_is_403_without_cors_headers(configured: Gateway):
    response = _preflight(configured, "/v1/chat/completions", "https://evil.example")
    assert response.status_code == 403
    assert not [name for name in response.headers if name.lower().startswith("access-control-")]


def test_a_preflight_never_allows_any_origin_with_a_star(configured: Gateway):
    for origin in (APP, "https://evil.example", "*"):
        response = _preflight(configured, "/v1/chat/completions", origin)
        assert response.headers.get("access-control-allow-origin") in (None, APP)


def test_a_post_from_an_allowed_origin_can_read_the_reply_and_its_bench_headers(
    configured: Gateway, upstream: FakeUpstream
):
    response = _post(
        configured, "/v1/chat/completions", hello(), Origin=APP, **{"Sec-Fetch-Site": "cross-site"}
    )
    assert response.status_code == 200, response.text
    assert response.headers["access-control-allow-origin"] == APP
    exposed = {h.strip().lower() for h in response.headers["access-control-expose-headers"].split(",")}
    assert {"x-bench-panel", "retry-after"} <= exposed
    assert "x-bench-panel" in response.headers and "Origin" in response.headers["vary"]
    assert "access-control-allow-credentials" not in response.headers


def test_a_refusal_to_an_allowed_origin_is_readable_by_its_page(configured: Gateway):
    response = _post(configured, "/v1/chat/completions", hello("bench/nope"), Origin=APP)
    assert response.status_code == 404
    assert response.headers["access-control-allow-origin"] == APP


def test_a_post_from_an_unlisted_origin_gets_no_cors_headers(configured: Gateway, upstream: FakeUpstream):
    response = _post(configured, "/v1/chat/completions", hello(), Origin="https://evil.example")
    assert response.status_code == 403
    assert "access-control-allow-origin" not in response.headers
    assert upstream.requests == []


@pytest.mark.parametrize("path", ["/api/keys", "/api/endpoints", "/login"])
def test_admin_routes_never_answer_cors_even_for_an_allowed_origin(configured: Gateway, path: str):
    preflight = _preflight(configured, path, APP)
    assert preflight.status_code == 403
    assert "access-control-allow-origin" not in preflight.headers
    read = httpx.get(f"{configured.url}{path}", headers={"Origin": APP})
    assert "access-control-allow-origin" not in read.headers
    write = _post(configured, path, {"name": "from app.example"}, Origin=APP)
    assert write.status_code == 403 and "access-control-allow-origin" not in write.headers
    assert configured.api("GET", "/api/keys")["keys"] == []
